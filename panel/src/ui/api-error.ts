/** An answer of the gateway that is not a success, as its message and code (the panel's and the console's). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    /** Seconds to wait before trying again (a 429's Retry-After). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

/** A form's own refusal, before anything is sent: its message (in Portuguese) is shown as it is. */
export class FormError extends Error {}

/** Every error body family of the API read as a message and a code. */
export function errorOf(
  data: Record<string, unknown> | null,
  status: number,
): { message: string; code: string } {
  const nested = data?.error as { code?: string; message?: string } | undefined;
  if (nested && typeof nested === 'object') return { message: nested.message ?? '', code: nested.code ?? '' };
  const message = typeof data?.message === 'string' ? data.message : `Erro ${status}`;
  const code = String(data?.errorType ?? data?.code ?? data?.error ?? status);
  return { message, code };
}
