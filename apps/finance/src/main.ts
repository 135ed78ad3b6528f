import { runMain } from '@ledgerline/service-kit';
import { financeService } from './service.js';

runMain(financeService);
