// The @azure/identity credential behind an Entra ID token: a service principal's client secret when the
// config names one, else DefaultAzureCredential's chain (environment, workload identity, managed identity,
// the Azure CLI). The library is loaded on first use, so a gateway without such a provider never loads it.
import type { TokenCredential } from '@azure/identity';

export interface EntraSettings {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Another Entra ID authority than Azure's public cloud (a sovereign cloud's, `https://login.microsoftonline.us`). */
  authorityHost?: string;
}

export async function entraCredential(settings: EntraSettings | null): Promise<TokenCredential> {
  const identity = await import('@azure/identity');
  if (settings === null) return new identity.DefaultAzureCredential();
  return new identity.ClientSecretCredential(settings.tenantId, settings.clientId, settings.clientSecret, {
    ...(settings.authorityHost === undefined
      ? {}
      : // An authority of the operator's own is trusted as written: it is not looked up in Azure's list.
        { authorityHost: settings.authorityHost, disableInstanceDiscovery: true }),
  });
}
