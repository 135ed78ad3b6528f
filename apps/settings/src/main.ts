import { runMain } from '@ledgerline/service-kit';
import { settingsService } from './service.js';

runMain(settingsService);
