/** Every TypeORM entity of the service: the data source is given them by the roots (API, worker, CLI). */
import { ApiKeyEntity } from '../auth/entities/api-key.entity.js';
import { DomainEntity } from '../domains/entities/domain.entity.js';
import { HostEntity } from '../hosts/entities/host.entity.js';
import { PlatformEntity } from '../platforms/entities/platform.entity.js';
import { ScanNameEntity } from '../discovery/entities/scan-name.entity.js';
import { ScanEntity } from '../discovery/entities/scan.entity.js';
import { DomainNewHostCountEntity, DomainNewHostDayEntity } from '../stats/entities/domain-new-host-count.entity.js';
import { NewHostCountEntity, NewHostMinuteEntity } from '../stats/entities/new-host-count.entity.js';
import { SessionEntity, SignInFailureEntity, UserEntity } from '../users/entities/user.entity.js';

export const ENTITIES = [
  PlatformEntity,
  DomainEntity,
  HostEntity,
  ScanEntity,
  ScanNameEntity,
  ApiKeyEntity,
  NewHostCountEntity,
  NewHostMinuteEntity,
  DomainNewHostCountEntity,
  DomainNewHostDayEntity,
  UserEntity,
  SessionEntity,
  SignInFailureEntity,
];
