/**
 * `npm run -s make-api-key`: prints a new API key in the platform's format (`ak_`, 32 base62
 * characters and the checksum the gateway checks), e.g. for BOOTSTRAP_API_KEY.
 */
import { generateSecret, SECRET_PREFIXES } from '@ledgerline/service-kit';

process.stdout.write(`${generateSecret(SECRET_PREFIXES.apiKey)}\n`);
