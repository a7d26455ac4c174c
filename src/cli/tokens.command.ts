import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { SCOPES, type Scope } from '../auth/entities/api-key.entity.js';
import { ApiKeysService } from '../auth/api-keys.service.js';
import { UsersService } from '../users/users.service.js';
import { asCliError, CliError, CliOutput, iso } from './cli-output.js';

interface CreateOptions {
  name?: string;
  user?: string;
  scopes?: Scope[];
}

export function parseScopes(value: string): Scope[] {
  const scopes = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad || scopes.length === 0) throw new CliError(`--scopes must be "read" or "read,write", got "${value}"`);
  // write implies read: a key that may queue scans may also see their results
  return scopes.includes('write') ? ['read', 'write'] : ['read'];
}

@SubCommand({ name: 'create', description: 'Create an API key; the key is printed once, alone on the last line' })
export class TokensCreateCommand extends CommandRunner {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly users: UsersService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(_: string[], options: CreateOptions): Promise<void> {
    if (!options.name) throw new CliError('--name is required');
    const scopes = options.scopes ?? ['read'];
    const { key, token } = await this.keys
      .create(options.name, await this.owner(options.user ?? 'operator'), scopes)
      .catch(asCliError);
    this.out.note(
      `Created key "${key.name}" (id ${key.id}) for user ${key.userId} with scopes ${key.scopes.join(',')}.`,
    );
    this.out.note('Store it now: it is shown only this once.');
    this.out.line(token);
  }

  @Option({ flags: '--name <name>', description: 'A name to recognise the key by (unique among active keys)' })
  parseName(value: string): string {
    return value;
  }

  /**
   * An email names a user (see `users create`): the key is theirs and shows on their account page. A disabled
   * user gets no key, by email or by id: the API would refuse it anyway (401 revoked_token).
   */
  private async owner(user: string): Promise<string> {
    const found = user.includes('@') ? await this.users.findByEmail(user) : await this.users.findById(user);
    if (!found && user.includes('@')) throw new CliError(`no user with the email ${user}`);
    if (found?.disabledAt) throw new CliError(`user ${found.email} is disabled: enable them first (users enable)`);
    return found?.id ?? user;
  }

  @Option({
    flags: '--user <id>',
    description: "The user the key belongs to: a user's email, or any id",
    defaultValue: 'operator',
  })
  parseUser(value: string): string {
    return value;
  }

  @Option({ flags: '--scopes <scopes>', description: 'read (default) or read,write' })
  parseScopes(value: string): Scope[] {
    return parseScopes(value);
  }
}

@SubCommand({ name: 'list', description: 'List API keys (never the keys themselves)' })
export class TokensListCommand extends CommandRunner {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(): Promise<void> {
    const keys = await this.keys.list();
    this.out.table(
      ['ID', 'NAME', 'USER', 'SCOPES', 'HINT', 'CREATED', 'LAST USED', 'REVOKED'],
      keys.map((k) => [
        k.id,
        k.name,
        k.userId,
        k.scopes.join(','),
        k.keyHint,
        iso(k.createdAt),
        iso(k.lastUsedAt),
        iso(k.revokedAt),
      ]),
    );
  }
}

@SubCommand({
  name: 'revoke',
  arguments: '<nameOrId>',
  description: 'Revoke a key by name or id; it stops working on the next request',
})
export class TokensRevokeCommand extends CommandRunner {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([nameOrId]: string[]): Promise<void> {
    const revoked = await this.keys.revoke(nameOrId).catch(asCliError);
    this.out.line(`Revoked key "${revoked.name}" (id ${revoked.id}).`);
  }
}

@Command({
  name: 'tokens',
  description: 'Create, list and revoke API keys',
  subCommands: [TokensCreateCommand, TokensListCommand, TokensRevokeCommand],
})
export class TokensCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: tokens create|list|revoke'));
  }
}
