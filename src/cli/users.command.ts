import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { Environment } from '../config/environment.js';
import { UsersService } from '../users/users.service.js';
import { asCliError, CliError, CliOutput, iso } from './cli-output.js';
import { readNewPassword } from './password-input.js';

/**
 * Where the service is reached, as it says where it listens: PUBLIC_URL, else HOST and PORT, an address that binds
 * every interface (0.0.0.0, ::) read as the loopback one.
 */
export function serviceUrl(env: Pick<Environment, 'PUBLIC_URL' | 'HOST' | 'PORT'>): string {
  if (env.PUBLIC_URL) return env.PUBLIC_URL.replace(/\/+$/, '');
  const host = env.HOST === '0.0.0.0' ? '127.0.0.1' : env.HOST === '::' ? '[::1]' : env.HOST;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${env.PORT}`;
}

/** Whether a service answers its liveness check at `base` within a second. */
async function answers(base: string): Promise<boolean> {
  try {
    return (await fetch(`${base}/health/live`, { signal: AbortSignal.timeout(1000) })).ok;
  } catch {
    return false;
  }
}

interface CreateOptions {
  email?: string;
  name?: string;
}

@SubCommand({
  name: 'create',
  description: 'Create a user who signs in at /account; the password is read from standard input (or typed twice)',
})
export class UsersCreateCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly out: CliOutput,
    private readonly env: Environment,
  ) {
    super();
  }

  async run(_: string[], options: CreateOptions): Promise<void> {
    if (!options.email) throw new CliError('--email is required');
    const password = await readNewPassword();
    const user = await this.users.create(options.email, options.name, password).catch(asCliError);
    const base = serviceUrl(this.env);
    // Made of HOST and PORT, the address is the service's only if this command runs with the service's settings.
    const unsure = !this.env.PUBLIC_URL && !(await answers(base));
    this.out.note(
      unsure
        ? `Created user ${user.email}. They sign in at /account with this password (no service answers at ${base} ` +
            "now: give this command the service's PUBLIC_URL or PORT to name its address)."
        : `Created user ${user.email}. They sign in at ${base}/account with this password.`,
    );
    this.out.line(user.id);
  }

  @Option({ flags: '--email <email>', description: 'The address the user signs in with' })
  parseEmail(value: string): string {
    return value;
  }

  @Option({ flags: '--name <name>', description: 'A display name' })
  parseName(value: string): string {
    return value;
  }
}

@SubCommand({ name: 'list', description: 'List users: id, email, name, active keys, created, disabled' })
export class UsersListCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run(): Promise<void> {
    const users = await this.users.list();
    this.out.table(
      ['ID', 'EMAIL', 'NAME', 'KEYS', 'CREATED', 'DISABLED'],
      users.map((u) => [u.id, u.email, u.name ?? '-', String(u.active_keys), iso(u.created_at), iso(u.disabled_at)]),
    );
  }
}

@SubCommand({
  name: 'disable',
  arguments: '<email>',
  description: 'Disable a user: they are signed out, cannot sign in, and their keys are revoked',
})
export class UsersDisableCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([email]: string[]): Promise<void> {
    const { user, revokedKeys } = await this.users.disable(email).catch(asCliError);
    this.out.line(`disabled ${user.email}; revoked ${revokedKeys} key(s)`);
  }
}

@SubCommand({
  name: 'enable',
  arguments: '<email>',
  description: 'Let a disabled user sign in again (keys revoked by disable stay revoked)',
})
export class UsersEnableCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([email]: string[]): Promise<void> {
    const user = await this.users.enable(email).catch(asCliError);
    this.out.line(`enabled ${user.email}`);
  }
}

@SubCommand({
  name: 'password',
  arguments: '<email>',
  description: "Set a user's password (read like create's); signs them out everywhere",
})
export class UsersPasswordCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly out: CliOutput,
  ) {
    super();
  }

  async run([email]: string[]): Promise<void> {
    const user = await this.users.setPassword(email, await readNewPassword()).catch(asCliError);
    this.out.line(`set the password of ${user.email}`);
  }
}

@Command({
  name: 'users',
  description: 'Create, list, disable and enable users, who manage their own keys at /account',
  subCommands: [UsersCreateCommand, UsersListCommand, UsersDisableCommand, UsersEnableCommand, UsersPasswordCommand],
})
export class UsersCommand extends CommandRunner {
  run(): Promise<void> {
    return Promise.reject(new CliError('usage: users create|list|disable|enable|password'));
  }
}
