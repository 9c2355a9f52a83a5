import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../errors.js';

export const ErrorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]]);
