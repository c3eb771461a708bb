import { SiegelError } from '../../src/errors.js';

/** The {@link SiegelError} `promise` rejects with; fails the test when it resolves or rejects otherwise. */
export async function siegelRejection(promise: Promise<unknown>): Promise<SiegelError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SiegelError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}
