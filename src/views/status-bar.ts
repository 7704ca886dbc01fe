/**
 * The status bar item: indexing progress (spinner and percentage), then counts; a warning
 * state when searching keyword-only, with why in the tooltip. Click: the status menu
 * (pause/resume, rebuild, indexed files, log). Its text comes from src/editor/status.ts.
 */
import * as vscode from 'vscode';
import { accessibleLabel, type IndexStateModel } from '../editor/status';

export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;

  constructor(command: string) {
    this.item = vscode.window.createStatusBarItem('fathom.status', vscode.StatusBarAlignment.Left, 10);
    this.item.name = 'Fathom';
    this.item.command = command;
    this.item.text = '$(sync~spin) Fathom';
    this.item.tooltip = 'Fathom is starting';
    this.item.accessibilityInformation = { label: 'Fathom is starting', role: 'button' };
    this.item.show();
  }

  update(m: IndexStateModel): void {
    this.item.text = m.barText;
    this.item.tooltip = m.tooltip;
    this.item.accessibilityInformation = { label: accessibleLabel(m.tooltip), role: 'button' };
    this.item.backgroundColor = m.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose(): void {
    this.item.dispose();
  }
}
