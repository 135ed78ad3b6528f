import type { TestProject } from 'vitest/node';
import { startContainerStack } from './container-stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set when the end-to-end tests run against the containers: the gateway's address and the operator token. */
    containerStack?: { gatewayUrl: string; operatorToken: string; databaseUrl: string; natsUrl: string };
  }
}

/** Starts the containers once for the run (`npm run test:containers`); the tests reach them through the gateway container. */
export default async function setup(project: TestProject) {
  const stack = await startContainerStack();
  project.provide('containerStack', { gatewayUrl: stack.gatewayUrl, operatorToken: stack.operatorToken, databaseUrl: stack.databaseUrl, natsUrl: stack.natsUrl });
  return () => stack.stop();
}
