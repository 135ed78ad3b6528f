import { runMain } from '@ledgerline/service-kit';
import { purchaseService } from './service.js';

runMain(purchaseService);
