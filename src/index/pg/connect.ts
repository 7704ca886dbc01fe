/** Connecting to the team index's server (timeouts, TLS, a URL without its password) and telling a lost connection from a failed query. */
import { randomBytes } from 'node:crypto';
import { errText } from '../../util/errors';
import { PgStoreError, type Sql } from './schema';

export interface PgConnection extends Sql {
  end(): Promise<void>;
}

/**
 * Connects to `url` with the `pg` client; the caller ends it. Without a password in the URL, the
 * client takes it from PGPASSWORD or ~/.pgpass (PGPASSFILE), as psql does; PGHOST, PGUSER … fill
 * what the URL leaves out.
 */
export async function connectPg(url: string, options: { timeoutMs?: number } = {}): Promise<PgConnection> {
  const { Client } = (await import('pg')).default ?? (await import('pg'));
  const timeoutMs = options.timeoutMs ?? 10_000;
  const sslmode = /[?&]sslmode=([^&#]*)/.exec(url)?.[1];
  // sslmode as libpq means it (require: encrypted, certificate not checked; verify-ca/verify-full:
  // checked against sslrootcert), not the pg client's default (every mode but disable as verify-full)
  const compat = sslmode && sslmode !== 'disable' && sslmode !== 'no-verify' && !/[?&]uselibpqcompat=/.test(url) ? `${url.includes('?') ? '&' : '?'}uselibpqcompat=true` : '';
  let client: InstanceType<typeof Client>;
  try {
    client = new Client({ connectionString: url + compat, connectionTimeoutMillis: timeoutMs });
  } catch (err) {
    throw new PgStoreError(`cannot connect to ${redact(url)}: ${errText(err)}`); // an sslrootcert that cannot be read, verify-ca without one
  }
  client.on('error', () => undefined); // a dropped connection fails the next query instead of crashing the process
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    const code = (err as { code?: string }).code ?? '';
    if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS_CERT_ALTNAME/.test(code)) {
      throw new PgStoreError(`cannot connect to ${redact(url)}: the server's certificate is not trusted (sslmode=${sslmode ?? 'verify-full'}; give the CA that signed it as sslrootcert=FILE): ${errText(err)}`);
    }
    if (/timeout/i.test(errText(err))) {
      throw new PgStoreError(`cannot connect to ${redact(url)}: no answer within ${Math.round(timeoutMs / 1000)} s (${errText(err)})`);
    }
    throw new PgStoreError(`cannot connect to ${redact(url)}: ${errText(err)}`);
  }
  return serialized(client);
}

/**
 * The statements a search sends every time (`prepared(text)` registers one): on a `pg`
 * connection each is prepared once under a name (parsed and planned once, not per search: a
 * quarter of the server's time per keyword search, bench/pg.ts --server). The name carries a tag
 * of the connection, so that clients sharing one server session (PGlite's socket server, a pooler)
 * never meet each other's statements.
 */
const PREPARED = new Map<string, number>();
export function prepared(text: string): string {
  if (!PREPARED.has(text)) PREPARED.set(text, PREPARED.size);
  return text;
}

/**
 * Errors after which a connection sends its statements unprepared from then on (and the failed
 * one again, unprepared): the statement is gone (26000: a transaction pooler moved the session),
 * already there (42P05), or its plan no longer fits the tables (0A000: "cached plan must not
 * change result type", after another client's migration).
 */
const UNPREPARED_AFTER = new Set(['26000', '42P05', '0A000']);

type PgQuery = (q: { name: string; text: string; values?: unknown[] }) => Promise<{ rows: unknown[] }>;

/**
 * One query at a time on the connection: a search asks for its keyword and dense lists at once,
 * and the `pg` client, which queues them itself today, deprecates that ("Calling client.query()
 * when the client is already executing a query", removed in pg 9). Same order, same round trips.
 * The statements `prepared` registered go by name.
 */
export function serialized(client: { query: Sql['query']; end(): Promise<void> }): PgConnection {
  let last: Promise<unknown> = Promise.resolve();
  const tag = randomBytes(4).toString('hex');
  let named = true;
  const send = async <T>(text: string, params?: unknown[]): Promise<{ rows: T[] }> => {
    const i = named ? PREPARED.get(text) : undefined;
    if (i === undefined) return client.query<T>(text, params);
    try {
      return (await (client.query as unknown as PgQuery)({ name: `fathom_${i}_${tag}`, text, values: params })) as { rows: T[] };
    } catch (err) {
      if (!UNPREPARED_AFTER.has(String((err as { code?: unknown }).code))) throw err;
      named = false;
      return client.query<T>(text, params);
    }
  };
  return {
    query<T>(text: string, params?: unknown[]) {
      const run = last.then(() => send<T>(text, params));
      last = run.catch(() => undefined);
      return run;
    },
    end: () => client.end(),
  };
}

/**
 * The URL without its password, for messages. The userinfo runs to the LAST `@` (a password
 * may hold a raw `@`, `/` or `:`): everything after the user name's `:` up to it is masked; an
 * `@` in the query makes this mask more than the password, never less.
 */
export function redact(url: string): string {
  const scheme = /^[a-z][\w+.-]*:\/\//i.exec(url);
  let out = url;
  if (scheme) {
    const at = url.lastIndexOf('@');
    const start = scheme[0].length;
    if (at > start) {
      const info = url.slice(start, at);
      const colon = info.indexOf(':');
      if (colon >= 0) out = `${url.slice(0, start)}${info.slice(0, colon)}:***${url.slice(at)}`;
    }
  }
  return out.replace(/([?&]password=)[^&]*/gi, '$1***');
}

export const isPgUrl = (s: string | undefined): s is string => !!s && /^postgres(ql)?:\/\//i.test(s);

/**
 * Did `err` come from a connection the server (or the network) closed, rather than from the
 * query: the server shutting down or terminating the session (SQLSTATE class 57P, 08), a reset
 * socket, or the `pg` client refusing to use a connection that already failed.
 */
export function isConnectionLoss(err: unknown): boolean {
  const code = String((err as { code?: unknown })?.code ?? '');
  if (/^(57P0[123]|08\w{3}|ECONNRESET|EPIPE|ECONNABORTED)$/.test(code)) return true;
  return /Connection terminated|not queryable|terminating connection|server closed the connection|ECONNRESET|EPIPE/i.test(errText(err));
}
