/**
 * The agent tools (src/agent/tools.ts) over the worker's open `FolderSession`s: the editor's
 * language-model tools send a `tool` request, and the worker answers it here with the same
 * tools the `fathom mcp` server runs over its `LocalFolder`s.
 */
import type { Embedder } from '../index/embedder';
import type { IndexProgress } from '../index/engine';
import type { LookupResult } from '../i18n/types';
import { engineChunks, engineChunksOf, enginePaths, type AgentFolder, type I18nAsk } from '../agent/folder';
import { runTool, ToolError } from '../agent/tools';
import type { ToolRequest, ToolResult } from './protocol';
import type { FolderSession } from './session';

/**
 * An open `FolderSession` as the agent tools see it, for hosts that keep their own sessions (the
 * worker): `progress` says what its running index request has done, `i18n` how the host asks
 * (with its locale globs and embedder).
 */
export function sessionAgentFolder(
  session: FolderSession,
  host: { progress: () => IndexProgress | undefined; i18n: (ask: I18nAsk) => Promise<LookupResult>; keywordOnlyReason?: string; watching: string },
): AgentFolder {
  return {
    root: session.root,
    search: (query, options) => session.search(query, options),
    similar: (target, options) => session.similar(target, options),
    chunksOf: (rel) => engineChunksOf(session.engine, rel),
    paths: () => enginePaths(session.engine),
    skipOf: (rel) => session.engine.files.get(rel)?.skipped,
    fileHash: (rel) => session.engine.files.get(rel)?.hash,
    allChunks: () => engineChunks(session.engine),
    readFile: (rel, maxBytes) => session.source.read(rel, maxBytes),
    i18n: host.i18n,
    state: () => {
      const s = session.status();
      const p = host.progress();
      return {
        root: session.root,
        files: s.files,
        skipped: s.skipped,
        chunks: s.chunks,
        vectors: s.vectors,
        pendingVectors: s.pendingVectors,
        indexing: s.indexing ? { phase: p?.phase ?? 'scan', filesDone: p?.filesDone ?? 0, filesTotal: p?.filesTotal ?? 0 } : undefined,
        embedding: s.embedding || undefined,
        keywordOnlyReason: session.engine.vectors ? undefined : (host.keywordOnlyReason ?? session.engine.noEmbedderReason),
        model: session.engine.vectors ? session.engine.embedder?.id : undefined,
        companion: session.engine.vectors ? session.engine.embedder?.companion?.id : undefined,
        store: session.cannotSave ? `not saved (${session.cannotSave}): answered from memory` : (session.storeDir ?? 'not saved (no store)'),
        watching: host.watching,
      };
    },
  };
}

/**
 * Runs the tool `req` asks for over `sessions` (the worker's open folders; none open: the tool
 * says "no folder is open"). Bad input is an `isError` answer with the message, never a failed
 * request.
 */
export async function runSessionTool(
  req: ToolRequest,
  sessions: FolderSession[],
  host: { progressOf: (root: string) => IndexProgress | undefined; embedder: Embedder | undefined; keywordOnlyReason: string | undefined; signal: AbortSignal },
): Promise<ToolResult> {
  const folders = sessions.map((s) =>
    sessionAgentFolder(s, {
      progress: () => host.progressOf(s.root),
      i18n: async (ask) => {
        const a = await s.i18n(ask, { signal: host.signal, embedder: host.embedder });
        return a.result;
      },
      keywordOnlyReason: host.embedder ? undefined : host.keywordOnlyReason,
      watching: "the editor's file watcher",
    }),
  );
  try {
    return await runTool(req.name, req.args, { folders });
  } catch (err) {
    if (err instanceof ToolError) return { text: err.message, structured: {}, isError: true };
    throw err;
  }
}
