import { runMain } from '@ledgerline/service-kit';
import { accountingService } from './service.js';

runMain(accountingService);
