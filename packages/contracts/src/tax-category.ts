import { z } from 'zod';
import { SUPPLY_KINDS, TAX_CATEGORY_CODES } from '@ledgerline/core/tax-category-codes';

/* The VAT category of a tax line and what a line supplies (issue 70): one list, in @ledgerline/core. */

export const taxCategory = z.enum(TAX_CATEGORY_CODES).meta({
  id: 'TaxCategory',
  description: 'UNCL5305 VAT category: S standard, AA lower rate, Z zero rated, E exempt, AE reverse charge, K intra-EU supply, G export, O outside the scope of VAT, L Canary Islands, M Ceuta and Melilla',
});

export const supplyKind = z.enum(SUPPLY_KINDS).meta({ id: 'SupplyKind', description: 'What a line supplies: goods or services' });
