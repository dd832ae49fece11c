// The redaction stage: operator-configured patterns and built-in detectors (e-mail addresses, phone
// numbers, card numbers by Luhn, IBANs by mod 97, OpenAI/Anthropic/AWS keys) masked in prompts before
// they leave the gateway and, with `replies: true`, in replies before they reach the caller; or, with
// `action: refuse`, the request refused with a 400 that names the rule and never the matched text.
import { GatewayError } from '../../core/errors.ts';
import type { ReplyContext, RequestContext, Stage, StageCounter, StageDefinition, TextsContext } from '../stage.ts';
import { redactSchema, settingsFor, type RedactBlock, type RedactSettings } from './config.ts';
import type { Rule } from './detectors.ts';
import { findAll, masked } from './scan.ts';
import { StreamMasker } from './stream-masker.ts';

function maskTexts(ctx: TextsContext, rules: readonly Rule[]): void {
  const texts = ctx.texts;
  for (let i = 0; i < texts.length; i++) {
    const found = findAll(texts[i], rules);
    if (found.length === 0) continue;
    for (const f of found) ctx.count(f.rule, 1);
    ctx.setText(i, masked(texts[i], found));
  }
}

function refuseMatches(ctx: RequestContext, rules: readonly Rule[]): void {
  const names = new Set<string>();
  for (const text of ctx.texts)
    for (const f of findAll(text, rules)) {
      ctx.count(f.rule, 1);
      names.add(f.rule);
    }
  if (names.size === 0) return;
  const list = [...names].map((n) => `\`${n}\``).join(', ');
  throw new GatewayError('content_refused', {
    message: `The request was refused: it contains text matched by the redaction rule${names.size > 1 ? 's' : ''} ${list}.`,
  });
}

function redactStageFor(settings: RedactSettings): Stage {
  const { rules } = settings;
  const stage: Stage = {
    name: 'redact',
    beforeRouting:
      settings.action === 'refuse'
        ? (ctx: RequestContext) => refuseMatches(ctx, rules)
        : (ctx: RequestContext) => maskTexts(ctx, rules),
  };
  // A reply is masked whatever the action: what the upstream already wrote cannot be refused any more.
  if (settings.replies) {
    stage.afterReply = (ctx: ReplyContext) => maskTexts(ctx, rules);
    stage.onStreamEvent = (counter: StageCounter) => new StreamMasker(rules, counter);
  }
  return stage;
}

export const redact: StageDefinition<RedactBlock> = {
  key: 'redact',
  schema: redactSchema,
  build(top, model) {
    const settings = settingsFor(top, model);
    return settings === null ? null : redactStageFor(settings);
  },
};
