import { Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { CONTROL_CHARACTERS_PROBLEM, hasControlCharacters } from '../common/validation/control-characters.js';
import { hashPassword, passwordProblem } from './password.js';
import type { UserEntity } from './entities/user.entity.js';
import { type UserRow, UsersRepository } from './users.repository.js';
import { AppError, type ErrorCode } from '../common/errors/app-error.js';

/** An operator's mistake with users: said in one line, nothing written. */
export class UserError extends AppError {
  constructor(message: string, code: ErrorCode = 'invalid_body') {
    super(code, message);
  }
}

/** Users as the operator manages them from the CLI. */
@Injectable()
export class UsersService {
  constructor(private readonly users: UsersRepository) {}

  static normaliseEmail(email: string): string {
    return email.trim().toLowerCase();
  }

  async create(emailInput: string, name: string | undefined, password: string): Promise<UserEntity> {
    const email = UsersService.normaliseEmail(emailInput);
    if (!isEmail(email) || email.length > 254) throw new UserError(`"${emailInput}" is not an email address`);
    if (name !== undefined && hasControlCharacters(name)) throw new UserError(CONTROL_CHARACTERS_PROBLEM('--name'));
    if (name !== undefined && !/^\S(.{0,98}\S)?$/.test(name)) {
      throw new UserError('--name must be 1 to 100 characters, not starting or ending with a space');
    }
    const problem = passwordProblem(password);
    if (problem) throw new UserError(problem);
    const user = await this.users.insert(email, name ?? null, await hashPassword(password));
    if (!user) throw new UserError(`a user with the email ${email} already exists`);
    return user;
  }

  list(): Promise<UserRow[]> {
    return this.users.list();
  }

  async require(emailInput: string): Promise<UserEntity> {
    const user = await this.users.findByEmail(UsersService.normaliseEmail(emailInput));
    if (!user) throw new UserError(`no user with the email ${emailInput}`, 'not_found');
    return user;
  }

  /** The user an email names, for `tokens create --user`; undefined when it is no user's address. */
  async findByEmail(email: string): Promise<UserEntity | undefined> {
    return (await this.users.findByEmail(UsersService.normaliseEmail(email))) ?? undefined;
  }

  /** The user an id names, for `tokens create --user`; undefined when it is not a user's id (any id may own keys). */
  async findById(id: string): Promise<UserEntity | undefined> {
    return (await this.users.findById(id)) ?? undefined;
  }

  async disable(email: string): Promise<{ user: UserEntity; revokedKeys: number }> {
    const user = await this.require(email);
    return { user, revokedKeys: await this.users.disable(user.id) };
  }

  async enable(email: string): Promise<UserEntity> {
    const user = await this.require(email);
    await this.users.enable(user.id);
    return user;
  }

  async setPassword(email: string, password: string): Promise<UserEntity> {
    const user = await this.require(email);
    const problem = passwordProblem(password);
    if (problem) throw new UserError(problem);
    await this.users.setPassword(user.id, await hashPassword(password));
    return user;
  }
}
