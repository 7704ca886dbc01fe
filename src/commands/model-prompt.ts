/**
 * Search by meaning without a hunt for settings. When Fathom runs keyword-only because it has
 * no model (none bundled in the VSIX, no local folder, downloads off), it asks once:
 * "Search by meaning needs a 23 MB model. Download it?" — Download / Not now / Use a local
 * folder…. The answer is remembered in the extension's global state (`fathom.modelChoice`), so
 * it is never asked again; the sidebar's keyword-only line and the status menu offer the same
 * actions later. "Download" re-configures the worker with downloads allowed, under a
 * cancellable progress notification, and offers Retry when it fails; "Use a local folder…"
 * writes `fathom.model.localPath` (user settings) with the chosen folder.
 *
 * "Model Settings…" opens the settings where VS Code shows them: Fathom's model settings are
 * `machine-overridable`, so in a remote window (code-server, SSH, WSL, containers) they appear
 * only under the Remote tab, never under User.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { KeywordOnlyAdvice, ModelChoice } from '../editor/settings';
import type { WorkspaceIndex } from './workspace-index';
import { errText } from '../util/errors';

export const MODEL_CHOICE_KEY = 'fathom.modelChoice';
export const PROMPT_TEXT = 'Search by meaning needs a 23 MB model. Download it?';

export type ModelAction = 'download' | 'local' | 'notNow';

/** The files a model folder needs (what the worker loads for the q8 model). */
const MODEL_FILES = ['config.json', 'tokenizer.json', path.join('onnx', 'model_quantized.onnx')];

/** Opens the Settings editor on Fathom's model settings, on the tab that shows them (Remote in a remote window). */
export async function openModelSettings(log?: vscode.LogOutputChannel): Promise<void> {
  if (vscode.env.remoteName) {
    try {
      await vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query: 'fathom.model' });
      return;
    } catch (e) {
      log?.warn(`could not open the remote settings (${errText(e)}); opening the user settings`);
    }
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', 'fathom.model');
}

export class ModelPrompt {
  private asked = false;
  private busy: Promise<void> | undefined;

  constructor(
    private readonly state: vscode.Memento,
    private readonly index: () => WorkspaceIndex,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get choice(): ModelChoice | undefined {
    const c = this.state.get<string>(MODEL_CHOICE_KEY);
    return c === 'download' || c === 'notNow' || c === 'local' ? c : undefined;
  }

  private remember(c: ModelChoice): Thenable<void> {
    this.log.info(`model: "${c === 'notNow' ? 'Not now' : c === 'local' ? 'Use a local folder' : 'Download'}" remembered`);
    return this.state.update(MODEL_CHOICE_KEY, c);
  }

  /** After each worker configuration: asks once, when the model is missing and nothing was chosen yet. */
  onModelState(advice: KeywordOnlyAdvice | undefined): void {
    if (!advice?.modelActions || this.asked || this.busy || this.choice !== undefined || this.index().hasBundledModel) return;
    this.asked = true;
    this.log.info(`asking for the model: "${PROMPT_TEXT}"`);
    void vscode.window.showInformationMessage(PROMPT_TEXT, 'Download', 'Not now', 'Use a local folder…').then((pick) => {
      if (pick === 'Download') void this.run('download');
      else if (pick === 'Use a local folder…') void this.run('local');
      else if (pick === 'Not now') void this.run('notNow');
      else this.log.info('the model prompt was closed without an answer: it is asked again next time');
    });
  }

  /** One action at a time (a second click while a download runs waits for it). */
  run(action: ModelAction): Promise<void> {
    const go = async () => {
      try {
        if (action === 'notNow') await this.remember('notNow');
        else if (action === 'download') await this.download();
        else await this.useLocalFolder();
      } catch (e) {
        this.log.error(`model ${action} failed: ${errText(e)}`);
      }
    };
    const p = (this.busy ?? Promise.resolve()).then(go).finally(() => {
      if (this.busy === p) this.busy = undefined;
    });
    this.busy = p;
    return p;
  }

  private async download(): Promise<void> {
    const previous = this.choice;
    await this.remember('download');
    const abort = new AbortController();
    const ok = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Fathom: downloading the embedding model (about 23 MB, once)…', cancellable: true },
      (_progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        return this.index().restart(false, abort.signal);
      },
    );
    if (abort.signal.aborted) {
      this.log.info('the model download was cancelled: keyword-only until you choose again');
      await this.state.update(MODEL_CHOICE_KEY, previous === 'download' ? undefined : previous);
      await this.index().restart(false);
      return;
    }
    if (ok && this.index().modelLoaded) {
      void vscode.window.showInformationMessage('Fathom: the embedding model is ready; search is by meaning and by name now.');
      return;
    }
    const again = await vscode.window.showErrorMessage('Fathom could not download the model (see the log).', 'Retry', 'Use a local folder…', 'Show Log');
    if (again === 'Retry') return this.download();
    if (again === 'Use a local folder…') return this.useLocalFolder();
    if (again === 'Show Log') this.log.show();
  }

  private async useLocalFolder(): Promise<void> {
    const picked = await vscode.window.showOpenDialog({
      canSelectFolders: true,
      canSelectFiles: false,
      canSelectMany: false,
      openLabel: 'Use this model folder',
      title: 'Fathom: the model folder (config.json, tokenizer.json, onnx/model_quantized.onnx)',
    });
    const dir = picked?.[0];
    if (!dir) {
      this.log.info('no model folder was chosen');
      return;
    }
    if (dir.scheme !== 'file') {
      void vscode.window.showErrorMessage(`Fathom: the model folder must be on disk (${dir.toString()} is not).`);
      return;
    }
    const missing = MODEL_FILES.filter((f) => !fs.existsSync(path.join(dir.fsPath, f)));
    if (missing.length) {
      this.log.warn(`${dir.fsPath} is not a model folder: ${missing.join(', ')} missing`);
      const again = await vscode.window.showErrorMessage(`Fathom: ${path.basename(dir.fsPath)} is not a model folder (${missing.join(', ')} missing).`, 'Choose Another…');
      if (again) return this.useLocalFolder();
      return;
    }
    await this.remember('local');
    this.log.info(`model folder chosen: ${dir.fsPath} (fathom.model.localPath in user settings)`);
    // The settings change re-configures the worker (WorkspaceIndex listens to it).
    await vscode.workspace.getConfiguration('fathom').update('model.localPath', dir.fsPath, vscode.ConfigurationTarget.Global);
  }
}
