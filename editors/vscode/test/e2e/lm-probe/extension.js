// Test-only (run.mjs, scenario lm-chat): a second extension that uses
// gemini-ls's models through VS Code's language model API, as any chat
// extension would: vscode.lm.selectChatModels({vendor: "gemini-ls"}),
// then one request to the first model, its streamed text read to the
// end. What it saw goes to the file GEMINI_LM_PROBE_OUT names, as JSON.
const vscode = require('vscode');
const fs = require('fs');

// The models come once gemini-ls runs: asked again for a while.
async function geminiModels() {
  const until = Date.now() + 30_000;
  for (;;) {
    const models = await vscode.lm.selectChatModels({ vendor: 'gemini-ls' });
    if (models.length > 0 || Date.now() > until) return models;
    await new Promise((r) => setTimeout(r, 500));
  }
}

exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('lmProbe.ask', async () => {
    const report = { models: [], asked: '', answer: '', error: '' };
    let models = [];
    try {
      models = await geminiModels();
      report.models = models.map((m) => ({ id: m.id, name: m.name, vendor: m.vendor, family: m.family, maxInputTokens: m.maxInputTokens }));
      if (models.length === 0) throw new Error('no model of vendor gemini-ls');
      const model = models[0];
      report.asked = model.id;
      const messages = [
        vscode.LanguageModelChatMessage.User('Earlier question.'),
        vscode.LanguageModelChatMessage.Assistant('Earlier answer.'),
        vscode.LanguageModelChatMessage.User('Say hello from VS Code\'s chat.'),
      ];
      const res = await model.sendRequest(messages, { justification: 'The gemini-ls end-to-end test asks Gemini through VS Code.' });
      for await (const piece of res.text) report.answer += piece;
    } catch (e) {
      report.error = String((e && e.message) || e);
    }
    fs.writeFileSync(process.env.GEMINI_LM_PROBE_OUT, JSON.stringify(report, null, 2));
    void vscode.window.showInformationMessage(report.error ? `LM probe failed: ${report.error}` : `LM probe: ${report.models.length} Gemini models; ${models[0].name} answered: ${report.answer}`);
  }));
};
