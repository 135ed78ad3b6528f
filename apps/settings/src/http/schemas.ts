// The settings service validates with the shared contracts (one source of truth with the OpenAPI document).
export {
  apiKeyCreateSchema,
  apiKeyUpdateSchema,
  clientRequestSchema as clientCreateSchema,
  tokenRequestSchema,
  organisationUpdateSchema as organisationInputSchema,
  organisationCreateSchema,
} from '@ledgerline/contracts';
