// The one error translators throw: a request field that has no faithful equivalent in the target dialect.
// The lead's request stage renders it as HTTP 400 in the client's dialect, naming `param`.

export class TranslationError extends Error {
  override readonly name = 'TranslationError';
  readonly code = 'untranslatable_field';
  readonly status = 400;
  /** JSON path of the offending field in the client's request, e.g. `messages[2].content[1].type`. */
  readonly param: string;

  constructor(param: string, message: string) {
    super(message);
    this.param = param;
  }
}
