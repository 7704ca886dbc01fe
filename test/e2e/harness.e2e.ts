/**
 * The harness's own helpers, checked against code-server: the webview frame chain (with a
 * test-only extension, so this does not depend on Fathom's views), the theme switch through
 * live settings, and the hostile fixture text staying text inside a webview.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { useSession } from './harness';

const PROBE = path.join(__dirname, 'fixtures', 'webview-probe');
const PROBE_ID = 'fathom-e2e.webview-probe';

describe('harness: webviews and themes', function () {
  const session = useSession({ name: 'harness', extraExtensions: [PROBE] });

  it('reaches a sidebar webview through code-server\'s nested iframes, both message directions', async () => {
    const s = session();
    await s.page.locator('.activitybar a.action-label[aria-label^="Webview Probe"]').click();
    const view = s.webview({ extensionId: PROBE_ID });
    await view.locator('#q').fill('hello from the test');
    await view.locator('#go').click();
    await assert.doesNotReject(view.locator('li.echo', { hasText: 'HELLO FROM THE TEST' }).waitFor({ timeout: 15_000 }));
    await s.screenshot('webview-probe');
  });

  it('shows hostile text as text inside a webview (no script runs, no element is made)', async () => {
    const s = session();
    const view = s.webview({ extensionId: PROBE_ID });
    const dialogs: string[] = [];
    s.page.on('dialog', (d) => { dialogs.push(d.message()); void d.dismiss(); });
    await view.locator('#q').fill('<img src=x onerror=alert(1)>');
    await view.locator('#go').click();
    await view.locator('li.echo', { hasText: '<IMG SRC=X ONERROR=ALERT(1)>' }).waitFor({ timeout: 15_000 });
    assert.equal(await view.locator('li.echo img').count(), 0);
    assert.deepEqual(dialogs, []);
  });

  it('switches between light and dark themes live', async () => {
    const s = session();
    assert.equal(await s.page.locator('.monaco-workbench.vs').count(), 1, 'starts light');
    await s.setTheme('dark');
    assert.equal(await s.page.locator('.monaco-workbench.vs-dark').count(), 1);
    await s.screenshot('dark');
    await s.setTheme('light');
    assert.equal(await s.page.locator('.monaco-workbench.vs').count(), 1);
  });
});

describe('harness: workspace trust', function () {
  const session = useSession({ name: 'trust', workspaceTrust: true, waitForActivation: false });

  it('shows the trust dialog at start; "No" puts the window in Restricted Mode', async () => {
    const s = session();
    await s.answerTrustDialog(false);
    await assert.doesNotReject(s.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).waitFor({ timeout: 15_000 }));
    await s.screenshot('restricted-mode');
  });
});
