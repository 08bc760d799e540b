import { Type } from 'typebox';

export const IpList = Type.Object({ ips: Type.Array(Type.String()) });
// Items are validated by the service so that a malformed entry gets INVALID_IP naming it, not a schema error.
// No maxItems: the service counts entries after normalization (TOO_MANY_IPS), and the body limit bounds it.
export const IpListBody = Type.Object({ ips: Type.Array(Type.Unknown()) });
