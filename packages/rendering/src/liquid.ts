import { BusinessRuleError, UpstreamError } from '@ledgerline/core/errors';
import { messageOf, parseTemplate, type RenderRequest } from './engine.js';
import { RenderSandbox, SandboxRenderError, type SandboxLimitName } from './sandbox.js';

export { LIMITS, labelsFor, safeColour, type DocumentKind, type RenderRequest, type RenderScope, type TemplateLike } from './engine.js';

export class TemplateError extends BusinessRuleError {
  constructor(message: string, code = 'template_invalid') {
    super(message, code, [{ path: 'html_template', message, code }]);
  }
}

/** 422 `template_limit_exceeded`: the template broke a sandbox limit, named in `errors[0].code` (`limit_memory`, …). */
export class TemplateLimitError extends BusinessRuleError {
  constructor(
    readonly limit: SandboxLimitName,
    detail: string,
  ) {
    super(`The template exceeded the ${limit.replace('_', ' ')} limit: ${detail}`, 'template_limit_exceeded', [
      { path: 'html_template', message: `${limit}: ${detail}`, code: `limit_${limit}` },
    ]);
  }
}

/** Parses a template without rendering it; a template that cannot be used → TemplateError. */
export function checkTemplate(html: string): void {
  try {
    parseTemplate(html);
  } catch (e) {
    throw new TemplateError(`The template cannot be used: ${messageOf(e)}`);
  }
}

let shared: RenderSandbox | undefined;

/** The process's render sandbox (worker pool), created on first use. */
export function renderSandbox(): RenderSandbox {
  shared ??= new RenderSandbox();
  return shared;
}

/**
 * Renders a document to HTML with its template, in the sandbox: a worker thread with a capped
 * heap, a wall-clock limit and an output cap (decision 51).
 */
export async function renderDocumentHtml(req: RenderRequest, sandbox: RenderSandbox = renderSandbox()): Promise<string> {
  try {
    return await sandbox.render(req);
  } catch (e) {
    if (e instanceof SandboxRenderError) {
      if (e.limit === 'busy') throw new UpstreamError(503, 'renderer', 'too many documents are being rendered; retry shortly');
      if (e.limit) throw new TemplateLimitError(e.limit, e.message);
      throw new TemplateError(`The template could not be rendered: ${e.message}`, 'template_render_failed');
    }
    throw e;
  }
}
