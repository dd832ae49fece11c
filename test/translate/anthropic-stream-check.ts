// Rebuilds a Message from Anthropic stream events the way @anthropic-ai/sdk's MessageStream does, failing on
// anything it would reject: event name ≠ type, message_start not first/once, gaps or overlaps in block indexes.
import assert from 'node:assert/strict';
import type { SseEvent } from '../../src/core/sse.ts';
import { createValidator, validateAnthropicError } from '../helpers/schemas.ts';

// Strict: the Stainless nullable-but-required fields must be present too (STREAMING.md §5 caveat 2).
const validateMessageStreamEvent = createValidator('anthropic', 'MessageStreamEvent', { requireNullable: true });

export interface RebuiltBlock {
  type: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  json?: string;
}

export interface Rebuilt {
  id: string;
  model: string;
  blocks: RebuiltBlock[];
  startUsage: Record<string, unknown>;
  deltaUsage: Record<string, unknown> | null;
  stopReason: string | null;
  stopSequence: string | null;
  stopped: boolean;
  error: { type: string; message: string } | null;
}

/** The fields of any stream event this checker reads; the schema validators check the rest. */
interface EventShape {
  type: string;
  index: number;
  error: { type: string; message: string };
  message: { id: string; model: string; usage: Record<string, unknown> };
  content_block: { type: string; text?: string; thinking?: string; id?: string; name?: string };
  delta: {
    type?: string;
    text?: string;
    partial_json?: string;
    thinking?: string;
    stop_reason?: string | null;
    stop_sequence?: string | null;
  };
  usage: Record<string, unknown>;
}

export function rebuildAnthropic(events: SseEvent[]): Rebuilt {
  const out: Rebuilt = {
    id: '',
    model: '',
    blocks: [],
    startUsage: {},
    deltaUsage: null,
    stopReason: null,
    stopSequence: null,
    stopped: false,
    error: null,
  };
  let started = false;
  let open: number | null = null;
  for (const ev of events) {
    const data = JSON.parse(ev.data) as EventShape;
    assert.equal(ev.event, data.type, 'event: name equals the JSON type');
    // The error event is not in the spec's MessageStreamEvent union; its body is an ErrorResponse.
    if (data.type === 'error') validateAnthropicError(data);
    else validateMessageStreamEvent(data);
    assert.equal(out.stopped, false, 'nothing after message_stop');
    if (data.type === 'error') {
      out.error = data.error;
      continue;
    }
    assert.equal(out.error, null, 'nothing after an error event');
    if (data.type === 'message_start') {
      assert.equal(started, false, 'message_start only once');
      started = true;
      out.id = data.message.id;
      out.model = data.message.model;
      out.startUsage = data.message.usage;
      continue;
    }
    assert.ok(started, `${data.type} before message_start`);
    switch (data.type) {
      case 'content_block_start':
        assert.equal(open, null, 'blocks never overlap');
        assert.equal(data.index, out.blocks.length, 'block indexes are contiguous');
        open = data.index;
        out.blocks.push({
          type: data.content_block.type,
          text: data.content_block.text,
          id: data.content_block.id,
          name: data.content_block.name,
          json: data.content_block.type === 'tool_use' ? '' : undefined,
          thinking: data.content_block.thinking,
        });
        break;
      case 'content_block_delta': {
        assert.equal(data.index, open, 'delta for the open block');
        const b = out.blocks[data.index];
        if (data.delta.type === 'text_delta') b.text = (b.text ?? '') + data.delta.text;
        else if (data.delta.type === 'input_json_delta') b.json = (b.json ?? '') + data.delta.partial_json;
        else if (data.delta.type === 'thinking_delta') b.thinking = (b.thinking ?? '') + data.delta.thinking;
        break;
      }
      case 'content_block_stop':
        assert.equal(data.index, open, 'stop for the open block');
        open = null;
        break;
      case 'message_delta':
        assert.equal(open, null, 'message_delta after every block closed');
        out.stopReason = data.delta.stop_reason ?? null;
        out.stopSequence = data.delta.stop_sequence ?? null;
        out.deltaUsage = data.usage;
        break;
      case 'message_stop':
        out.stopped = true;
        break;
    }
  }
  return out;
}
