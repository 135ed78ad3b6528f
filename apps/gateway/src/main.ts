import { ConfigError } from '@ledgerline/service-kit/config';
import { startTracing } from '@ledgerline/service-kit/tracing';
import { startGateway } from './gateway.js';

// spans go out over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set
const tracing = startTracing('gateway');
startGateway()
  .then((gw) => {
    const stop = () =>
      gw
        .close()
        .then(async () => (await tracing)?.())
        .then(() => process.exit(0), () => process.exit(1));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  })
  .catch((err) => {
    process.stderr.write(err instanceof ConfigError ? `gateway: ${err.message}\n` : `gateway: failed to start: ${err?.stack ?? err}\n`);
    process.exit(1);
  });
