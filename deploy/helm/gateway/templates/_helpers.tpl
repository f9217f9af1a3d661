{{/* Names and labels. */}}
{{- define "gateway.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "gateway.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gateway.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gateway.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "gateway.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* Where the chart puts things inside the pod. */}}
{{- define "gateway.dataPort" -}}8080{{- end -}}
{{- define "gateway.dbPath" -}}/var/lib/gateway/gateway.db{{- end -}}
{{- define "gateway.databaseUrlEnv" -}}GATEWAY_DATABASE_URL{{- end -}}
{{- define "gateway.adminTlsDir" -}}/etc/gateway-tls/admin{{- end -}}
{{- define "gateway.dataTlsDir" -}}/etc/gateway-tls/data{{- end -}}

{{/*
The operator's config (configFile text, else the config map) with the keys the chart owns set:
listen (the container port), admin_listen (loopback unless exposed), db_path (the volume, embedded
store only), database_url (an { env: } reference, postgres store only; with on_store_error and
reservation_lease_seconds when store.postgres sets them), admin_tls (the mounted
Secret, when exposed) and tls (when tls.secretName is set). Rendered as YAML.
*/}}
{{- define "gateway.config" -}}
{{- $cfg := dict -}}
{{- if .Values.configFile -}}
{{- $cfg = fromYaml .Values.configFile -}}
{{- if hasKey $cfg "Error" -}}
{{- fail (printf "configFile is not a YAML mapping: %s" (get $cfg "Error")) -}}
{{- end -}}
{{- else if .Values.config -}}
{{- $cfg = deepCopy .Values.config -}}
{{- else -}}
{{- /* Nothing given: a demo that starts without credentials (values.yaml says so). */ -}}
{{- $cfg = dict "models" (dict "demo" (dict "provider" "demo" "model" "demo-echo")) "governance" "on" -}}
{{- end -}}
{{- $_ := set $cfg "listen" (printf "0.0.0.0:%s" (include "gateway.dataPort" .)) -}}
{{- if .Values.admin.expose -}}
{{- $_ := set $cfg "admin_listen" (printf "0.0.0.0:%d" (int .Values.admin.port)) -}}
{{- $tlsDir := include "gateway.adminTlsDir" . -}}
{{- $tls := dict "cert" (printf "%s/tls.crt" $tlsDir) "key" (printf "%s/tls.key" $tlsDir) -}}
{{- if .Values.admin.tls.clientCa -}}
{{- $_ := set $tls "client_ca" (printf "%s/ca.crt" $tlsDir) -}}
{{- end -}}
{{- $_ := set $cfg "admin_tls" $tls -}}
{{- else -}}
{{- $_ := set $cfg "admin_listen" (printf "127.0.0.1:%d" (int .Values.admin.port)) -}}
{{- end -}}
{{- if .Values.tls.secretName -}}
{{- $dir := include "gateway.dataTlsDir" . -}}
{{- $tls := dict "cert" (printf "%s/tls.crt" $dir) "key" (printf "%s/tls.key" $dir) -}}
{{- if .Values.tls.clientCa -}}
{{- $_ := set $tls "client_ca" (printf "%s/ca.crt" $dir) -}}
{{- end -}}
{{- $_ := set $cfg "tls" $tls -}}
{{- end -}}
{{- if eq .Values.store.mode "embedded" -}}
{{- $_ := set $cfg "db_path" (include "gateway.dbPath" .) -}}
{{- else if eq .Values.store.mode "postgres" -}}
{{- /* A reference only: the URL carries the password, so it stays in its Secret. */ -}}
{{- $_ := set $cfg "database_url" (dict "env" (include "gateway.databaseUrlEnv" .)) -}}
{{- with .Values.store.postgres.onStoreError -}}
{{- $_ := set $cfg "on_store_error" . -}}
{{- end -}}
{{- with .Values.store.postgres.reservationLeaseSeconds -}}
{{- $_ := set $cfg "reservation_lease_seconds" (int .) -}}
{{- end -}}
{{- end -}}
{{- toYaml $cfg -}}
{{- end -}}

{{/*
Refusals, each a sentence saying what to change. Called once, from the Deployment.
*/}}
{{- define "gateway.checks" -}}
{{- $cfg := include "gateway.config" . | fromYaml -}}
{{- $mode := .Values.store.mode -}}
{{- $replicas := int .Values.replicaCount -}}
{{- if eq $mode "postgres" -}}
{{- if not .Values.store.postgres.existingSecret -}}
{{- fail "store.mode is postgres but store.postgres.existingSecret is empty: name the Secret whose key (store.postgres.key) holds the database URL; the chart reads it as GATEWAY_DATABASE_URL and never renders it" -}}
{{- end -}}
{{- if hasKey (default dict .Values.secretEnv) (include "gateway.databaseUrlEnv" .) -}}
{{- fail "secretEnv.GATEWAY_DATABASE_URL is set and store.mode is postgres, which provides that variable from store.postgres.existingSecret: set it in one place (store.postgres)" -}}
{{- end -}}
{{- if hasKey $cfg "db_path" -}}
{{- fail "store.mode is postgres but the config sets db_path: the store is PostgreSQL (database_url), not a file; drop db_path" -}}
{{- end -}}
{{- else if eq $mode "embedded" -}}
{{- if gt $replicas 1 -}}
{{- fail (printf "replicaCount is %d but store.mode is embedded: the embedded SQLite store (db_path) is one file on one volume and may be opened by one gateway only. Run replicaCount: 1, or store.mode postgres (a shared PostgreSQL store, store.postgres.existingSecret) for more replicas, or store.mode none (no governance)." $replicas) -}}
{{- end -}}
{{- else if eq $mode "none" -}}
{{- if hasKey $cfg "db_path" -}}
{{- fail "store.mode is none but the config sets db_path: a store file on a pod's own disk would be lost with the pod. Use store.mode embedded (one replica) or drop db_path." -}}
{{- end -}}
{{- $gov := toString (get $cfg "governance") -}}
{{- if or (eq $gov "on") (eq $gov "true") -}}
{{- fail "store.mode is none but governance is on: virtual keys and spend need a store. Use store.mode embedded (one replica), or governance: \"off\"." -}}
{{- end -}}
{{- else -}}
{{- fail (printf "store.mode %q is not one of embedded, none, postgres" $mode) -}}
{{- end -}}
{{- if and (ne $mode "postgres") (hasKey $cfg "database_url") -}}
{{- fail (printf "the config sets database_url but store.mode is %s: use store.mode postgres (with store.postgres.existingSecret), which sets database_url itself" $mode) -}}
{{- end -}}
{{- if lt $replicas 0 -}}
{{- fail "replicaCount must not be negative" -}}
{{- end -}}
{{- if .Values.admin.expose -}}
{{- if and (not .Values.admin.tokenSecret.name) (not (hasKey $cfg "admin_token")) -}}
{{- fail "admin.expose is true but no admin token is given: set admin.tokenSecret.name (a Secret with the token), or the gateway refuses to start" -}}
{{- end -}}
{{- if not .Values.admin.tls.secretName -}}
{{- fail "admin.expose is true but admin.tls.secretName is empty: beyond loopback the admin plane needs TLS (a kubernetes.io/tls Secret), or the gateway refuses to start" -}}
{{- end -}}
{{- end -}}
{{- /* Every { env: NAME } in the config must come from somewhere the chart can see. */ -}}
{{- if not .Values.envFromSecrets -}}
{{- $provided := keys (default dict .Values.secretEnv) -}}
{{- range .Values.extraEnv -}}
{{- $provided = append $provided .name -}}
{{- end -}}
{{- if .Values.admin.tokenSecret.name -}}{{- $provided = append $provided "GATEWAY_ADMIN_TOKEN" -}}{{- end -}}
{{- if .Values.store.governanceSecret.secretName -}}{{- $provided = append $provided "GATEWAY_GOVERNANCE_SECRET" -}}{{- end -}}
{{- if eq $mode "postgres" -}}{{- $provided = append $provided (include "gateway.databaseUrlEnv" .) -}}{{- end -}}
{{- range regexFindAll "(?m)^\\s*env: *['\"]?[A-Za-z_][A-Za-z0-9_]*" (include "gateway.config" .) -1 -}}
{{- $name := regexReplaceAll "^\\s*env: *['\"]?" . "" -}}
{{- if not (has $name $provided) -}}
{{- fail (printf "the config reads the environment variable %s ({ env: %s }) but nothing provides it: add secretEnv.%s: { secretName: ..., key: ... } (or list its Secret in envFromSecrets)" $name $name $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* terminationGracePeriodSeconds: the drain the config allows, plus a margin. */}}
{{- define "gateway.terminationGrace" -}}
{{- $cfg := include "gateway.config" . | fromYaml -}}
{{- $server := default dict (get $cfg "server") -}}
{{- $ms := add (int64 (default 25000 (get $server "shutdown_timeout_ms"))) (int64 (default 0 (get $server "drain_delay_ms"))) -}}
{{- add (div (add $ms 999) 1000) (int64 .Values.terminationGraceExtraSeconds) -}}
{{- end -}}
