{{/* Chart name, truncated to the 63 characters of a DNS label. */}}
{{- define "article-runtime.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Resource name: fullnameOverride, else release name (containing the chart name) or release-chart. */}}
{{- define "article-runtime.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "article-runtime.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "article-runtime.selectorLabels" -}}
app.kubernetes.io/name: {{ include "article-runtime.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "article-runtime.labels" -}}
helm.sh/chart: {{ include "article-runtime.chart" . }}
{{ include "article-runtime.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* ConfigMap holding the providers YAML (kept apart from the env ConfigMap so envFrom does not
turn the file into a variable). */}}
{{- define "article-runtime.providersConfigMap" -}}
{{- printf "%s-providers" (include "article-runtime.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* JSON list of the variables read from the Secret: every providers api_key_env, the Langfuse
keys when langfuse.enabled, the SASL password when kafka.securityProtocol is SASL_*, and
extraSecretEnv; sorted, without duplicates. */}}
{{- define "article-runtime.secretEnvNames" -}}
{{- $names := list }}
{{- range $call, $spec := .Values.providers }}
{{- if not (kindIs "map" $spec) }}
{{- fail (printf "providers.%s must be a map with runtime_primary and runtime_fallback" $call) }}
{{- end }}
{{- range $role, $provider := $spec }}
{{- if and (kindIs "map" $provider) $provider.api_key_env }}
{{- $names = append $names $provider.api_key_env }}
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.langfuse.enabled }}
{{- $names = concat $names (list "LANGFUSE_PUBLIC_KEY" "LANGFUSE_SECRET_KEY") }}
{{- end }}
{{- if hasPrefix "SASL_" .Values.kafka.securityProtocol }}
{{- $names = append $names "KAFKA_SASL_PASSWORD" }}
{{- end }}
{{- $names = concat $names (default (list) .Values.extraSecretEnv) }}
{{- $names | uniq | sortAlpha | toJson }}
{{- end }}

{{/* Name of the Secret the pods read: existingSecret, or the chart's own (secret.create, dev only). */}}
{{- define "article-runtime.secretName" -}}
{{- if .Values.secret.existingSecret }}
{{- .Values.secret.existingSecret }}
{{- else if .Values.secret.create }}
{{- include "article-runtime.fullname" . }}
{{- end }}
{{- end }}

{{/* Refuses values the worker cannot run with. */}}
{{- define "article-runtime.validate" -}}
{{- if not .Values.kafka.bootstrapServers }}
{{- fail "kafka.bootstrapServers is required (KAFKA_BOOTSTRAP_SERVERS)" }}
{{- end }}
{{- $protocols := list "PLAINTEXT" "SSL" "SASL_PLAINTEXT" "SASL_SSL" }}
{{- if not (has .Values.kafka.securityProtocol $protocols) }}
{{- fail (printf "kafka.securityProtocol must be one of %s" (join ", " $protocols)) }}
{{- end }}
{{- if hasPrefix "SASL_" .Values.kafka.securityProtocol }}
{{- if not (has .Values.kafka.sasl.mechanism (list "PLAIN" "SCRAM-SHA-256" "SCRAM-SHA-512")) }}
{{- fail "kafka.sasl.mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 with SASL_*" }}
{{- end }}
{{- if not .Values.kafka.sasl.username }}
{{- fail "kafka.sasl.username is required with SASL_* (the password comes from the Secret's KAFKA_SASL_PASSWORD)" }}
{{- end }}
{{- end }}
{{- if and .Values.kafka.tls.existingSecret (not (hasSuffix "SSL" .Values.kafka.securityProtocol)) }}
{{- fail "kafka.tls.existingSecret is set but kafka.securityProtocol does not use TLS (SSL or SASL_SSL)" }}
{{- end }}
{{- if ne (not .Values.kafka.tls.certificateKey) (not .Values.kafka.tls.keyKey) }}
{{- fail "set both kafka.tls.certificateKey and kafka.tls.keyKey (mutual TLS), or neither" }}
{{- end }}
{{- if and (not .Values.providers) (not .Values.allowNoProviders) }}
{{- fail "providers is empty: no model would ever be called (every article deterministic, every enrichment no_provider). Set providers (see examples/providers.example.yaml), or allowNoProviders=true for a trial" }}
{{- end }}
{{- if not (has .Values.updateStrategy.type (list "RollingUpdate" "OnDelete")) }}
{{- fail "updateStrategy.type must be RollingUpdate or OnDelete" }}
{{- end }}
{{- if gt (int .Values.replicaCount) (int .Values.kafka.partitions) }}
{{- fail (printf "replicaCount (%d) > kafka.partitions (%d): workers beyond the partition count sit idle in the consumer group; add partitions first" (int .Values.replicaCount) (int .Values.kafka.partitions)) }}
{{- end }}
{{- if and .Values.secret.existingSecret .Values.secret.create }}
{{- fail "set secret.existingSecret or secret.create (dev only), not both" }}
{{- end }}
{{- if and .Values.ecpStandin.enabled (not (and .Values.ecpStandin.qid .Values.ecpStandin.name)) }}
{{- fail "ecpStandin.enabled needs both ecpStandin.qid and ecpStandin.name (and is for local runs only)" }}
{{- end }}
{{- range $name := list "ECP_STANDIN_QID" "ECP_STANDIN_NAME" }}
{{- if hasKey (default (dict) $.Values.extraEnv) $name }}
{{- fail (printf "%s in extraEnv: the ECP stand-in is for local runs only; use ecpStandin.enabled" $name) }}
{{- end }}
{{- end }}
{{- $secretEnv := include "article-runtime.secretEnvNames" . | fromJsonArray }}
{{- if and $secretEnv (not (include "article-runtime.secretName" .)) }}
{{- fail (printf "the worker reads %s from a Secret: set secret.existingSecret (or secret.create with secret.data, dev only)" (join ", " $secretEnv)) }}
{{- end }}
{{- if and .Values.secret.create (not .Values.secret.existingSecret) }}
{{- range $secretEnv }}
{{- if not (hasKey (default (dict) $.Values.secret.data) .) }}
{{- fail (printf "secret.create: secret.data has no %s" .) }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}

{{/* PromQL label matchers of this release's series: metrics.prometheusRule.selector, else the
job and namespace the ServiceMonitor scrapes them as. */}}
{{- define "article-runtime.metricsSelector" -}}
{{- if .Values.metrics.prometheusRule.selector }}
{{- .Values.metrics.prometheusRule.selector }}
{{- else }}
{{- printf "job=%q,namespace=%q" (include "article-runtime.fullname" .) .Release.Namespace }}
{{- end }}
{{- end }}

{{/* The ingested topic's name as the worker names it (topics.names, else prefix + contract). */}}
{{- define "article-runtime.ingestedTopic" -}}
{{- get .Values.topics.names "article.ingested" | default (printf "%sarticle.ingested" .Values.topics.prefix) -}}
{{- end -}}
