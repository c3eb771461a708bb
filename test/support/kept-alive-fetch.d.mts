// Types for kept-alive-fetch.mjs (plain JS so the bench runs it without a build), for the tests.

/** `fetch`, sent once more when the server closed the kept-alive connection before answering. */
export function fetchKeptAlive(url: string, init?: RequestInit): Promise<Response>;
