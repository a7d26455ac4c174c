import { Injectable } from '@nestjs/common';
import { type CtLogRow, CtLogsRepository } from './ct-logs.repository.js';

/** Where the followed logs stand, for the API and the CLI alike. */
@Injectable()
export class CtService {
  constructor(private readonly logs: CtLogsRepository) {}

  status(): Promise<CtLogRow[]> {
    return this.logs.list();
  }
}
