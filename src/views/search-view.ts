/**
 * The sidebar's search view: a webview (media/view.ts) under a strict CSP with a nonce. This
 * file only connects a `WebviewView` to the pure `SearchController` (src/editor/search-controller.ts),
 * which holds the message handling; the page is the static shell of src/editor/html.ts.
 */
import * as vscode from 'vscode';
import type { WorkerHit } from '../service/protocol';
import { makeNonce, renderShell } from '../editor/html';
import type { HostToView } from '../editor/messages';
import type { SearchController } from '../editor/search-controller';
import { errText } from '../util/errors';

export const SEARCH_VIEW_ID = 'fathom.search';

export class SearchViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  controller!: SearchController;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly onError: (message: string) => void,
    private readonly measure: <T>(what: string, fn: () => T) => T = (_w, fn) => fn(),
  ) {}

  /** What the controller posts; dropped while the view is not resolved (it replays on `ready`). */
  post(m: HostToView): void {
    this.view?.webview.postMessage(m).then(undefined, (e: unknown) => this.onError(`search view: could not post ${m.type}: ${errText(e)}`));
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const media = vscode.Uri.joinPath(this.extensionUri, 'dist', 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    const uri = (f: string) => view.webview.asWebviewUri(vscode.Uri.joinPath(media, f)).toString();
    view.webview.html = renderShell({ cspSource: view.webview.cspSource, nonce: makeNonce(), scriptUri: uri('view.js'), styleUri: uri('view.css'), codiconUri: uri('codicon.css') });
    this.disposables.push(
      view.webview.onDidReceiveMessage((m: unknown) => this.measure('view message', () => void this.controller.handle(m))),
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
      }),
    );
  }

  /** Shows hits that did not come from the query box (Find Similar), revealing the view. */
  async showResults(title: string, hits: WorkerHit[]): Promise<void> {
    await this.reveal();
    this.controller.showResults(title, hits);
  }

  /** Reveals the view and puts `query` in its box. */
  async searchFor(query: string): Promise<void> {
    await this.reveal();
    this.post({ type: 'setQuery', query, focus: true });
  }

  async reveal(): Promise<void> {
    if (this.view) this.view.show(true);
    else await vscode.commands.executeCommand(`${SEARCH_VIEW_ID}.focus`);
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
