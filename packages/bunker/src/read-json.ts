import type { Context } from 'hono';
import { BunkerError } from './errors.js';

/**
 * Read a request body as a JSON object.
 *
 * @throws {BunkerError} `invalid_request` when the body is empty, not JSON, or not an object.
 */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '')
    throw new BunkerError('invalid_request', 'The request body is empty: send a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    const detail = cause instanceof SyntaxError ? `: ${cause.message}` : '';
    throw new BunkerError('invalid_request', `The request body is not valid JSON${detail}`, { cause });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BunkerError('invalid_request', 'The request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
