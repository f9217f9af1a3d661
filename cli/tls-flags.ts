// The mTLS flags' names, shared by the option definitions (connection.ts) and the messages that
// tell a person which flag to pass (errors.ts).
//
// Named as infrastructure-provisioning providers name a client certificate and key given as files
// (Terraform's Vault, Nomad, Consul and Helm providers: cert_file, key_file; Vault's ca_cert_file is
// our --ca-cert). The first names, --client-cert and --client-key, stay as aliases.
export const CERT_FLAG = '--cert-file';
export const KEY_FLAG = '--key-file';
export const TLS_FLAG_ALIASES = { [CERT_FLAG]: '--client-cert', [KEY_FLAG]: '--client-key' } as const;
