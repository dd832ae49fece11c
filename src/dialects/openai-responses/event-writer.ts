// The Responses API stream's events, each numbered (`sequence_number`) and framed as SSE with its
// `event:` name equal to its `type`, in the order OpenAI sends them: response.created, in_progress,
// then per output item added → (content part / summary part → deltas → done) → item done, and one
// terminal event (completed, incomplete or failed).
import type { JsonObject } from '../../core/json.ts';

export class ResponsesEventWriter {
  #seq = 0;

  /** Events written so far (the next event's sequence number). */
  get count(): number {
    return this.#seq;
  }

  event(type: string, fields: JsonObject): string {
    const data = JSON.stringify({ type, sequence_number: this.#seq++, ...fields });
    return `event: ${type}\ndata: ${data}\n\n`;
  }

  created(response: JsonObject): string {
    return this.event('response.created', { response }) + this.event('response.in_progress', { response });
  }

  itemAdded(outputIndex: number, item: JsonObject): string {
    return this.event('response.output_item.added', { output_index: outputIndex, item });
  }

  itemDone(outputIndex: number, item: JsonObject): string {
    return this.event('response.output_item.done', { output_index: outputIndex, item });
  }

  textPartAdded(itemId: string, outputIndex: number): string {
    return this.event('response.content_part.added', {
      item_id: itemId,
      output_index: outputIndex,
      content_index: 0,
      part: { type: 'output_text', annotations: [], logprobs: [], text: '' },
    });
  }

  /**
   * The hot path (one event per token): written as text, the delta spliced in as the JSON literal the
   * upstream's decoder read when it has one. `itemId` is the gateway's own (hex), safe to splice.
   */
  textDelta(itemId: string, outputIndex: number, delta: string, json?: string): string {
    const seq = this.#seq++;
    return `event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":${seq},"item_id":"${itemId}","output_index":${outputIndex},"content_index":0,"delta":${json ?? JSON.stringify(delta)},"logprobs":[]}\n\n`;
  }

  /** output_text.done, then content_part.done. */
  textDone(itemId: string, outputIndex: number, text: string): string {
    return (
      this.event('response.output_text.done', {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        text,
        logprobs: [],
      }) +
      this.event('response.content_part.done', {
        item_id: itemId,
        output_index: outputIndex,
        content_index: 0,
        part: { type: 'output_text', annotations: [], logprobs: [], text },
      })
    );
  }

  argumentsDelta(itemId: string, outputIndex: number, delta: string): string {
    const seq = this.#seq++;
    return `event: response.function_call_arguments.delta\ndata: {"type":"response.function_call_arguments.delta","sequence_number":${seq},"item_id":"${itemId}","output_index":${outputIndex},"delta":${JSON.stringify(delta)}}\n\n`;
  }

  argumentsDone(itemId: string, outputIndex: number, name: string, args: string): string {
    return this.event('response.function_call_arguments.done', {
      item_id: itemId,
      output_index: outputIndex,
      name,
      arguments: args,
    });
  }

  customInputDelta(itemId: string, outputIndex: number, delta: string): string {
    return this.event('response.custom_tool_call_input.delta', { item_id: itemId, output_index: outputIndex, delta });
  }

  customInputDone(itemId: string, outputIndex: number, input: string): string {
    return this.event('response.custom_tool_call_input.done', { item_id: itemId, output_index: outputIndex, input });
  }

  summaryPartAdded(itemId: string, outputIndex: number, summaryIndex: number): string {
    return this.event('response.reasoning_summary_part.added', {
      item_id: itemId,
      output_index: outputIndex,
      summary_index: summaryIndex,
      part: { type: 'summary_text', text: '' },
    });
  }

  summaryDelta(itemId: string, outputIndex: number, summaryIndex: number, delta: string): string {
    return this.event('response.reasoning_summary_text.delta', {
      item_id: itemId,
      output_index: outputIndex,
      summary_index: summaryIndex,
      delta,
    });
  }

  /** reasoning_summary_text.done, then reasoning_summary_part.done. */
  summaryDone(itemId: string, outputIndex: number, summaryIndex: number, text: string): string {
    return (
      this.event('response.reasoning_summary_text.done', {
        item_id: itemId,
        output_index: outputIndex,
        summary_index: summaryIndex,
        text,
      }) +
      this.event('response.reasoning_summary_part.done', {
        item_id: itemId,
        output_index: outputIndex,
        summary_index: summaryIndex,
        part: { type: 'summary_text', text },
      })
    );
  }

  /** response.completed, response.incomplete or response.failed, by the response's status. */
  terminal(response: JsonObject): string {
    const type =
      response.status === 'failed'
        ? 'response.failed'
        : response.status === 'incomplete'
          ? 'response.incomplete'
          : 'response.completed';
    return this.event(type, { response });
  }
}
