import { AppError, type ErrorCode } from '../common/errors/app-error.js';

/** A webhook refused as given (its URL, filters or options): the message says why, for the API and the CLI alike. */
export class WebhookInputError extends AppError {
  constructor(message: string, code: ErrorCode = 'invalid_body') {
    super(code, message);
  }
}
