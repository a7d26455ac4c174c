import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { HostEntity } from './host.entity.js';

@Module({
  imports: [TypeOrmModule.forFeature([HostEntity])],
})
export class HostsModule {}
