import { Module } from '@nestjs/common';
import { ApiIndexController } from './api-index.controller.js';
import { OpenApiController, OpenApiDocument } from './openapi.controller.js';

@Module({
  controllers: [ApiIndexController, OpenApiController],
  providers: [OpenApiDocument],
  exports: [OpenApiDocument],
})
export class ApiIndexModule {}
