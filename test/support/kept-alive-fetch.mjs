// `fetch` for tests that talk to a server many times over kept-alive connections (plain JS, so that
// bench/nip46-flood runs test/support/nip46-flood.ts, which imports it, without a build).

/**
 * `fetch(url, init)`, sent once more when it failed because the server closed the kept-alive connection it
 * went out on before answering (undici: `fetch failed`, cause `other side closed`). A server closes a
 * connection idle for its keep-alive timeout (Node's: 5 s); undici drops an idle connection 1 s before the
 * timeout the server announced, but on a loaded machine its timer fires late and a request can leave on a
 * connection the server is closing at that moment. HTTP/1.1 leaves that race to the client (RFC 9112
 * §9.3.1: retry a request that got no answer); browsers do, and so does core's bunker client
 * (`requestBunker`, which retries network errors). Any other failure, or a second one, rejects as is.
 *
 * @example
 * const response = await fetchKeptAlive(`${bunker.url}/api/keys`, { headers });
 */
export async function fetchKeptAlive(url, init) {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (!closedBeforeAnswer(error)) throw error;
    return fetch(url, init);
  }
}

/** undici's error for a connection that ended before the response began. */
function closedBeforeAnswer(error) {
  const cause = error?.cause;
  return cause?.code === 'UND_ERR_SOCKET' && cause?.message === 'other side closed';
}
