{{/* Chart name, truncated to the 63 characters a label allows. */}}
{{- define "arbiter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name: release-chart unless the release name already holds the chart's. */}}
{{- define "arbiter.fullname" -}}
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

{{/* The headless Service's name (the full name may take 63 characters: leave room). */}}
{{- define "arbiter.headlessName" -}}
{{- printf "%s-headless" (include "arbiter.fullname" . | trunc 54 | trimSuffix "-") }}
{{- end }}

{{- define "arbiter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object (app.kubernetes.io conventions). */}}
{{- define "arbiter.labels" -}}
helm.sh/chart: {{ include "arbiter.chart" . }}
{{ include "arbiter.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: server
app.kubernetes.io/part-of: arbiter
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Labels of the `helm test` pod: not the server's selector labels (a name of its own), so that no
Service, PodDisruptionBudget or NetworkPolicy of the server selects it (the NetworkPolicy would
deny it DNS and the Service).
*/}}
{{- define "arbiter.testLabels" -}}
helm.sh/chart: {{ include "arbiter.chart" . }}
app.kubernetes.io/name: {{ include "arbiter.name" . | trunc 58 | trimSuffix "-" }}-test
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: test
app.kubernetes.io/part-of: arbiter
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
An object's labels: the chart's, with `extra` (a map of values: service.labels, podLabels, ...)
over them and the selector labels over both, each key once (one map, written by toYaml: a key
given twice is a YAML error that kustomize refuses). The selector labels win so that no extra
label takes an object out of what selects it (the pods out of their Deployment, Service, PDB and
NetworkPolicy; the Service out of its ServiceMonitor).
Call: include "arbiter.labelsWith" (list . $extra)
*/}}
{{- define "arbiter.labelsWith" -}}
{{- $ctx := index . 0 -}}
{{- $extra := index . 1 | default dict -}}
{{- $selector := include "arbiter.selectorLabels" $ctx | fromYaml -}}
{{- toYaml (merge $selector (deepCopy $extra) (include "arbiter.labels" $ctx | fromYaml)) -}}
{{- end }}

{{/* Labels that select the server pods; never change them on upgrade. */}}
{{- define "arbiter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "arbiter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "arbiter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "arbiter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image: image.repository has no default (values.schema.json requires it; this says so too
when the schema is skipped), so that no install pulls a placeholder and waits in ImagePullBackOff.
*/}}
{{- define "arbiter.image" -}}
{{- $repository := required "image.repository is required: the repository your cluster pulls arbiter from (e.g. --set image.repository=registry.example.com/arbiter; docs/operations.md)" .Values.image.repository }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" $repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" $repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}
{{- end }}

{{/* Label that lets a pod through the NetworkPolicy to the gRPC port. */}}
{{- define "arbiter.clientLabel" -}}
{{ include "arbiter.fullname" . | trunc 56 | trimSuffix "-" }}-client
{{- end }}

{{/*
ARBITER_WORKERS: config.workers, or when it is "" the CPU request rounded up, at least 1.
Never the CPU limit: a platform may strip limits (and the HPA and the scheduler go by the
request), and workers beyond the CPU the pod is sure of only queue for it. Quantities: 2, 1.5,
"1500m".
*/}}
{{- define "arbiter.workers" -}}
{{- $workers := .Values.config.workers -}}
{{- if ne (toString $workers) "" -}}
{{- $workers | int64 -}}
{{- else -}}
{{- $resources := .Values.resources | default dict -}}
{{- $cpu := dig "requests" "cpu" "" $resources | toString -}}
{{- if not $cpu -}}
{{- fail "config.workers is \"\" (follow the CPU request), but resources.requests.cpu is not set: set resources.requests.cpu or config.workers" -}}
{{- end -}}
{{- $cores := 0.0 -}}
{{- if hasSuffix "m" $cpu -}}
{{- $cores = divf (trimSuffix "m" $cpu | float64) 1000 -}}
{{- else -}}
{{- $cores = $cpu | float64 -}}
{{- end -}}
{{- max 1 ($cores | ceil | int64) -}}
{{- end -}}
{{- end }}

{{/* The kubernetes.io/tls Secret of the gRPC port (written by the Certificate when certManager). */}}
{{- define "arbiter.tlsSecretName" -}}
{{- .Values.tls.secretName | default (printf "%s-tls" (include "arbiter.fullname" . | trunc 59 | trimSuffix "-")) }}
{{- end }}

{{/* The Service's appProtocol for the gRPC port: HTTP/2 in the clear, or over TLS. */}}
{{- define "arbiter.grpcAppProtocol" -}}
{{- if .Values.tls.enabled }}https{{ else }}kubernetes.io/h2c{{ end }}
{{- end }}
