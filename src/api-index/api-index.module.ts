import { Module } from '@nestjs/common';
import { ApiIndexController } from './api-index.controller.js';

@Module({ controllers: [ApiIndexController] })
export class ApiIndexModule {}
