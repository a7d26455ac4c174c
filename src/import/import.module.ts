import { Module } from '@nestjs/common';
import { ImportRepository } from './import.repository.js';
import { ImportService } from './import.service.js';

/** Program sync: root domains from the platforms' published scope lists. */
@Module({ providers: [ImportRepository, ImportService], exports: [ImportService] })
export class ImportModule {}
