import { runMain } from '@ledgerline/service-kit';
import { salesService } from './service.js';

runMain(salesService);
