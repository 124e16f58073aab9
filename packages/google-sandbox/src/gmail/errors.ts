import type { ApiResult } from '../api/types';
import { errors } from '../google-errors';

/** Gmail's own validation errors are 400 invalidArgument, unlike the front end's generic 'invalid'. */
export const invalidArgument = (message: string): ApiResult => errors.badRequest(message, 'gmail', 'invalidArgument');
