export * from './locale.js';
export * from './liquid.js';
export { RenderSandbox, SANDBOX_LIMITS, SandboxRenderError, type SandboxLimits } from './sandbox.js';
export * from './default-template.js';
export * from './pdf.js';
export * from './mailer.js';
export * from './config.js';
