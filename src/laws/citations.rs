//! The catalog's citations held to what they name: every source opens,
//! from this repository (a document, and the anchor of the section in it)
//! or at a public URL (a page and section of the MCP specification that
//! [`SPEC_PAGES`] lists, a section of JSON-RPC 2.0).
//!
//! A law added to the catalog is held to the same rule; to cite a section
//! of the MCP specification this table does not list yet, add its page's
//! line (the headings' anchors as the specification's site makes them:
//! lowercase, letters, digits and `-` kept, spaces as `-`).

use std::path::Path;

use super::{CATALOG, Cite, JSON_RPC_SECTIONS, Profile, slug};
use crate::revision::Revision;

/// The pages of the MCP specification, at each revision, with the anchors
/// of their headings, as `(revision, page, anchors)`: the page is its path
/// under `https://modelcontextprotocol.io/specification/<revision>/` (an
/// index page by its directory), the anchors separated by spaces. Read
/// from `docs/specification/<revision>/` of the specification's
/// repository (github.com/modelcontextprotocol/modelcontextprotocol) at
/// commit b0f60ba5; `schema`, the generated reference, with no anchors.
const SPEC_PAGES: &[(&str, &str, &str)] = &[
    (
        "2024-11-05",
        "architecture",
        "core-components host clients servers design-principles message-types capability-negotiation",
    ),
    ("2024-11-05", "basic", "protocol-layers auth schema"),
    (
        "2024-11-05",
        "basic/lifecycle",
        "lifecycle-phases initialization version-negotiation capability-negotiation operation shutdown stdio http error-handling",
    ),
    (
        "2024-11-05",
        "basic/messages",
        "requests responses notifications",
    ),
    (
        "2024-11-05",
        "basic/transports",
        "stdio http-with-sse security-warning custom-transports",
    ),
    (
        "2024-11-05",
        "basic/utilities/cancellation",
        "cancellation-flow behavior-requirements timing-considerations implementation-notes error-handling",
    ),
    (
        "2024-11-05",
        "basic/utilities/ping",
        "overview message-format behavior-requirements usage-patterns implementation-considerations error-handling",
    ),
    (
        "2024-11-05",
        "basic/utilities/progress",
        "progress-flow behavior-requirements implementation-notes",
    ),
    (
        "2024-11-05",
        "client/roots",
        "user-interaction-model capabilities protocol-messages listing-roots root-list-changes message-flow data-types root project-directory multiple-repositories error-handling security-considerations implementation-guidelines",
    ),
    (
        "2024-11-05",
        "client/sampling",
        "user-interaction-model capabilities protocol-messages creating-messages message-flow data-types messages text-content image-content model-preferences capability-priorities model-hints error-handling security-considerations",
    ),
    (
        "2024-11-05",
        "",
        "overview key-details base-protocol features additional-utilities security-and-trust--safety key-principles implementation-guidelines learn-more",
    ),
    ("2024-11-05", "server", ""),
    (
        "2024-11-05",
        "server/prompts",
        "user-interaction-model capabilities protocol-messages listing-prompts getting-a-prompt list-changed-notification message-flow data-types prompt promptmessage text-content image-content embedded-resources error-handling implementation-considerations security",
    ),
    (
        "2024-11-05",
        "server/resources",
        "user-interaction-model capabilities protocol-messages listing-resources reading-resources resource-templates list-changed-notification subscriptions message-flow data-types resource resource-contents text-content binary-content common-uri-schemes https file git error-handling security-considerations",
    ),
    (
        "2024-11-05",
        "server/tools",
        "user-interaction-model capabilities protocol-messages listing-tools calling-tools list-changed-notification message-flow data-types tool tool-result text-content image-content embedded-resources error-handling security-considerations",
    ),
    (
        "2024-11-05",
        "server/utilities/completion",
        "user-interaction-model protocol-messages requesting-completions reference-types completion-results message-flow data-types completerequest completeresult implementation-considerations security",
    ),
    (
        "2024-11-05",
        "server/utilities/logging",
        "user-interaction-model capabilities log-levels protocol-messages setting-log-level log-message-notifications message-flow error-handling implementation-considerations security",
    ),
    (
        "2024-11-05",
        "server/utilities/pagination",
        "pagination-model response-format request-format pagination-flow operations-supporting-pagination implementation-guidelines error-handling",
    ),
    (
        "2025-03-26",
        "architecture",
        "core-components host clients servers design-principles capability-negotiation",
    ),
    (
        "2025-03-26",
        "basic/authorization",
        "introduction purpose-and-scope protocol-requirements standards-compliance authorization-flow overview oauth-grant-types example-authorization-code-grant server-metadata-discovery server-metadata-discovery-headers authorization-base-url fallbacks-for-servers-without-metadata-discovery dynamic-client-registration authorization-flow-steps decision-flow-overview access-token-usage token-requirements token-handling security-considerations error-handling implementation-requirements third-party-authorization-flow flow-description session-binding-requirements best-practices local-clients-as-public-oauth-21-clients authorization-metadata-discovery",
    ),
    (
        "2025-03-26",
        "basic",
        "messages requests responses notifications batching auth schema",
    ),
    (
        "2025-03-26",
        "basic/lifecycle",
        "lifecycle-phases initialization version-negotiation capability-negotiation operation shutdown stdio http timeouts error-handling",
    ),
    (
        "2025-03-26",
        "basic/transports",
        "stdio streamable-http security-warning sending-messages-to-the-server listening-for-messages-from-the-server multiple-connections resumability-and-redelivery session-management sequence-diagram backwards-compatibility custom-transports",
    ),
    (
        "2025-03-26",
        "basic/utilities/cancellation",
        "cancellation-flow behavior-requirements timing-considerations implementation-notes error-handling",
    ),
    (
        "2025-03-26",
        "basic/utilities/ping",
        "overview message-format behavior-requirements usage-patterns implementation-considerations error-handling",
    ),
    (
        "2025-03-26",
        "basic/utilities/progress",
        "progress-flow behavior-requirements implementation-notes",
    ),
    (
        "2025-03-26",
        "changelog",
        "major-changes other-schema-changes full-changelog",
    ),
    (
        "2025-03-26",
        "client/roots",
        "user-interaction-model capabilities protocol-messages listing-roots root-list-changes message-flow data-types root project-directory multiple-repositories error-handling security-considerations implementation-guidelines",
    ),
    (
        "2025-03-26",
        "client/sampling",
        "user-interaction-model capabilities protocol-messages creating-messages message-flow data-types messages text-content image-content audio-content model-preferences capability-priorities model-hints error-handling security-considerations",
    ),
    (
        "2025-03-26",
        "",
        "overview key-details base-protocol features additional-utilities security-and-trust--safety key-principles implementation-guidelines learn-more",
    ),
    ("2025-03-26", "server", ""),
    (
        "2025-03-26",
        "server/prompts",
        "user-interaction-model capabilities protocol-messages listing-prompts getting-a-prompt list-changed-notification message-flow data-types prompt promptmessage text-content image-content audio-content embedded-resources error-handling implementation-considerations security",
    ),
    (
        "2025-03-26",
        "server/resources",
        "user-interaction-model capabilities protocol-messages listing-resources reading-resources resource-templates list-changed-notification subscriptions message-flow data-types resource resource-contents text-content binary-content common-uri-schemes https file git error-handling security-considerations",
    ),
    (
        "2025-03-26",
        "server/tools",
        "user-interaction-model capabilities protocol-messages listing-tools calling-tools list-changed-notification message-flow data-types tool tool-result text-content image-content audio-content embedded-resources error-handling security-considerations",
    ),
    (
        "2025-03-26",
        "server/utilities/completion",
        "user-interaction-model capabilities protocol-messages requesting-completions reference-types completion-results message-flow data-types completerequest completeresult error-handling implementation-considerations security",
    ),
    (
        "2025-03-26",
        "server/utilities/logging",
        "user-interaction-model capabilities log-levels protocol-messages setting-log-level log-message-notifications message-flow error-handling implementation-considerations security",
    ),
    (
        "2025-03-26",
        "server/utilities/pagination",
        "pagination-model response-format request-format pagination-flow operations-supporting-pagination implementation-guidelines error-handling",
    ),
    (
        "2025-06-18",
        "architecture",
        "core-components host clients servers design-principles capability-negotiation",
    ),
    (
        "2025-06-18",
        "basic/authorization",
        "introduction purpose-and-scope protocol-requirements standards-compliance authorization-flow roles overview authorization-server-discovery authorization-server-location server-metadata-discovery sequence-diagram dynamic-client-registration authorization-flow-steps resource-parameter-implementation canonical-server-uri access-token-usage token-requirements token-handling error-handling security-considerations token-audience-binding-and-validation token-theft communication-security authorization-code-protection open-redirection confused-deputy-problem access-token-privilege-restriction",
    ),
    (
        "2025-06-18",
        "basic",
        "messages requests responses notifications auth schema general-fields meta",
    ),
    (
        "2025-06-18",
        "basic/lifecycle",
        "lifecycle-phases initialization version-negotiation capability-negotiation operation shutdown stdio http timeouts error-handling",
    ),
    (
        "2025-06-18",
        "basic/transports",
        "stdio streamable-http security-warning sending-messages-to-the-server listening-for-messages-from-the-server multiple-connections resumability-and-redelivery session-management sequence-diagram protocol-version-header backwards-compatibility custom-transports",
    ),
    (
        "2025-06-18",
        "basic/utilities/cancellation",
        "cancellation-flow behavior-requirements timing-considerations implementation-notes error-handling",
    ),
    (
        "2025-06-18",
        "basic/utilities/ping",
        "overview message-format behavior-requirements usage-patterns implementation-considerations error-handling",
    ),
    (
        "2025-06-18",
        "basic/utilities/progress",
        "progress-flow behavior-requirements implementation-notes",
    ),
    (
        "2025-06-18",
        "changelog",
        "major-changes other-schema-changes full-changelog",
    ),
    (
        "2025-06-18",
        "client/elicitation",
        "user-interaction-model capabilities protocol-messages creating-elicitation-requests simple-text-request structured-data-request message-flow request-schema supported-schema-types response-actions security-considerations",
    ),
    (
        "2025-06-18",
        "client/roots",
        "user-interaction-model capabilities protocol-messages listing-roots root-list-changes message-flow data-types root project-directory multiple-repositories error-handling security-considerations implementation-guidelines",
    ),
    (
        "2025-06-18",
        "client/sampling",
        "user-interaction-model capabilities protocol-messages creating-messages message-flow data-types messages text-content image-content audio-content model-preferences capability-priorities model-hints error-handling security-considerations",
    ),
    (
        "2025-06-18",
        "",
        "overview key-details base-protocol features additional-utilities security-and-trust--safety key-principles implementation-guidelines learn-more",
    ),
    ("2025-06-18", "schema", ""),
    ("2025-06-18", "server", ""),
    (
        "2025-06-18",
        "server/prompts",
        "user-interaction-model capabilities protocol-messages listing-prompts getting-a-prompt list-changed-notification message-flow data-types prompt promptmessage text-content image-content audio-content embedded-resources error-handling implementation-considerations security",
    ),
    (
        "2025-06-18",
        "server/resources",
        "user-interaction-model capabilities protocol-messages listing-resources reading-resources resource-templates list-changed-notification subscriptions message-flow data-types resource resource-contents text-content binary-content annotations common-uri-schemes https file git custom-uri-schemes error-handling security-considerations",
    ),
    (
        "2025-06-18",
        "server/tools",
        "user-interaction-model capabilities protocol-messages listing-tools calling-tools list-changed-notification message-flow data-types tool tool-result text-content image-content audio-content resource-links embedded-resources structured-content output-schema error-handling security-considerations",
    ),
    (
        "2025-06-18",
        "server/utilities/completion",
        "user-interaction-model capabilities protocol-messages requesting-completions reference-types completion-results message-flow data-types completerequest completeresult error-handling implementation-considerations security",
    ),
    (
        "2025-06-18",
        "server/utilities/logging",
        "user-interaction-model capabilities log-levels protocol-messages setting-log-level log-message-notifications message-flow error-handling implementation-considerations security",
    ),
    (
        "2025-06-18",
        "server/utilities/pagination",
        "pagination-model response-format request-format pagination-flow operations-supporting-pagination implementation-guidelines error-handling",
    ),
    (
        "2025-11-25",
        "architecture",
        "core-components host clients servers design-principles capability-negotiation",
    ),
    (
        "2025-11-25",
        "basic/authorization",
        "introduction purpose-and-scope protocol-requirements standards-compliance roles overview authorization-server-discovery authorization-server-location protected-resource-metadata-discovery-requirements authorization-server-metadata-discovery authorization-server-discovery-sequence-diagram client-registration-approaches client-id-metadata-documents implementation-requirements example-metadata-document client-id-metadata-documents-flow discovery preregistration dynamic-client-registration scope-selection-strategy authorization-flow-steps resource-parameter-implementation canonical-server-uri access-token-usage token-requirements token-handling error-handling scope-challenge-handling runtime-insufficient-scope-errors step-up-authorization-flow security-considerations token-audience-binding-and-validation token-theft communication-security authorization-code-protection open-redirection client-id-metadata-document-security authorization-server-abuse-protection localhost-redirect-uri-risks trust-policies confused-deputy-problem access-token-privilege-restriction mcp-authorization-extensions",
    ),
    (
        "2025-11-25",
        "basic",
        "messages requests responses result-responses error-responses notifications auth schema json-schema-usage schema-dialect example-usage default-dialect-2020-12 explicit-dialect-draft-07 implementation-requirements schema-validation general-fields meta icons",
    ),
    (
        "2025-11-25",
        "basic/lifecycle",
        "lifecycle-phases initialization version-negotiation capability-negotiation operation shutdown stdio http timeouts error-handling",
    ),
    (
        "2025-11-25",
        "basic/transports",
        "stdio streamable-http security-warning sending-messages-to-the-server listening-for-messages-from-the-server multiple-connections resumability-and-redelivery session-management sequence-diagram protocol-version-header backwards-compatibility custom-transports",
    ),
    (
        "2025-11-25",
        "basic/utilities/cancellation",
        "cancellation-flow behavior-requirements timing-considerations implementation-notes error-handling",
    ),
    (
        "2025-11-25",
        "basic/utilities/ping",
        "overview message-format behavior-requirements usage-patterns implementation-considerations error-handling",
    ),
    (
        "2025-11-25",
        "basic/utilities/progress",
        "progress-flow behavior-requirements implementation-notes",
    ),
    (
        "2025-11-25",
        "basic/utilities/tasks",
        "definitions user-interaction-model capabilities server-capabilities client-capabilities capability-negotiation tool-level-negotiation protocol-messages creating-tasks getting-tasks retrieving-task-results task-status-notification listing-tasks cancelling-tasks behavior-requirements task-support-and-handling task-id-requirements task-status-lifecycle input-required-status ttl-and-resource-management result-retrieval associating-task-related-messages task-notifications task-progress-notifications task-listing task-cancellation message-flow basic-task-lifecycle task-augmented-tool-call-with-elicitation task-augmented-sampling-request task-cancellation-flow data-types task task-status task-parameters related-task-metadata error-handling protocol-errors task-execution-errors security-considerations task-isolation-and-access-control resource-management audit-and-logging",
    ),
    (
        "2025-11-25",
        "changelog",
        "major-changes minor-changes other-schema-changes governance-and-process-updates full-changelog",
    ),
    (
        "2025-11-25",
        "client/elicitation",
        "user-interaction-model capabilities protocol-messages elicitation-requests form-mode-elicitation-requests requested-schema example-simple-text-request example-structured-data-request url-mode-elicitation-requests example-request-sensitive-data completion-notifications-for-url-mode-elicitation example url-elicitation-required-error message-flow form-mode-flow url-mode-flow url-mode-with-elicitation-required-error-flow response-actions implementation-considerations statefulness url-mode-elicitation-for-sensitive-data url-mode-elicitation-for-oauth-flows understanding-the-distinction implementation-pattern error-handling security-considerations safe-url-handling identifying-the-user form-mode-security phishing",
    ),
    (
        "2025-11-25",
        "client/roots",
        "user-interaction-model capabilities protocol-messages listing-roots root-list-changes message-flow data-types root project-directory multiple-repositories error-handling security-considerations implementation-guidelines",
    ),
    (
        "2025-11-25",
        "client/sampling",
        "user-interaction-model tools-in-sampling capabilities protocol-messages creating-messages sampling-with-tools multi-turn-tool-loop message-content-constraints tool-result-messages tool-use-and-result-balance cross-api-compatibility message-roles tool-choice-modes parallel-tool-use message-flow data-types messages text-content image-content audio-content model-preferences capability-priorities model-hints error-handling security-considerations",
    ),
    (
        "2025-11-25",
        "",
        "overview key-details base-protocol features additional-utilities security-and-trust--safety key-principles implementation-guidelines learn-more",
    ),
    ("2025-11-25", "schema", ""),
    ("2025-11-25", "server", ""),
    (
        "2025-11-25",
        "server/prompts",
        "user-interaction-model capabilities protocol-messages listing-prompts getting-a-prompt list-changed-notification message-flow data-types prompt promptmessage text-content image-content audio-content embedded-resources error-handling implementation-considerations security",
    ),
    (
        "2025-11-25",
        "server/resources",
        "user-interaction-model capabilities protocol-messages listing-resources reading-resources resource-templates list-changed-notification subscriptions message-flow data-types resource resource-contents text-content binary-content annotations common-uri-schemes https file git custom-uri-schemes error-handling security-considerations",
    ),
    (
        "2025-11-25",
        "server/tools",
        "user-interaction-model capabilities protocol-messages listing-tools calling-tools list-changed-notification message-flow data-types tool tool-names tool-result text-content image-content audio-content resource-links embedded-resources structured-content output-schema schema-examples tool-with-default-2020-12-schema tool-with-explicit-draft-07-schema tool-with-no-parameters error-handling security-considerations",
    ),
    (
        "2025-11-25",
        "server/utilities/completion",
        "user-interaction-model capabilities protocol-messages requesting-completions reference-types completion-results message-flow data-types completerequest completeresult error-handling implementation-considerations security",
    ),
    (
        "2025-11-25",
        "server/utilities/logging",
        "user-interaction-model capabilities log-levels protocol-messages setting-log-level log-message-notifications message-flow error-handling implementation-considerations security",
    ),
    (
        "2025-11-25",
        "server/utilities/pagination",
        "pagination-model response-format request-format pagination-flow operations-supporting-pagination implementation-guidelines error-handling",
    ),
    (
        "2026-07-28",
        "architecture",
        "core-components host clients servers design-principles capability-negotiation",
    ),
    (
        "2026-07-28",
        "basic/authorization/authorization-server-discovery",
        "authorization-server-location protected-resource-metadata-discovery-requirements authorization-server-metadata-discovery sequence-diagram",
    ),
    (
        "2026-07-28",
        "basic/authorization/client-registration",
        "client-id-metadata-documents implementation-requirements example-metadata-document client-id-metadata-documents-flow advertising-cimd-support pre-registration dynamic-client-registration application-type-and-redirect-uri-constraints authorization-server-binding",
    ),
    (
        "2026-07-28",
        "basic/authorization",
        "introduction purpose-and-scope protocol-requirements standards-compliance roles overview authorization-server-discovery client-registration scope-selection-strategy authorization-flow-steps authorization-response-validation resource-parameter-implementation canonical-server-uri access-token-usage token-requirements token-handling refresh-tokens error-handling scope-challenge-handling runtime-insufficient-scope-errors step-up-authorization-flow security-considerations mcp-authorization-extensions",
    ),
    (
        "2026-07-28",
        "basic/authorization/security-considerations",
        "token-audience-binding-and-validation token-theft communication-security authorization-code-protection mix-up-attacks open-redirection client-id-metadata-document-security authorization-server-abuse-protection localhost-redirect-uri-risks trust-policies confused-deputy-problem access-token-privilege-restriction",
    ),
    (
        "2026-07-28",
        "basic",
        "messages requests responses result-responses resulttype error-responses error-codes notifications message-patterns statelessness auth schema json-schema-usage schema-dialect example-usage default-dialect-2020-12 explicit-dialect-draft-07 implementation-requirements schema-validation ref-resolution composition-keyword-resource-use general-fields meta icons",
    ),
    (
        "2026-07-28",
        "basic/patterns/cancellation",
        "cancellation-flow transport-specific-cancellation timeouts behavior-requirements timing-considerations implementation-notes error-handling",
    ),
    (
        "2026-07-28",
        "basic/patterns",
        "request-and-response multi-round-trip-requests subscribe-and-notify adding-patterns",
    ),
    (
        "2026-07-28",
        "basic/patterns/mrtr",
        "multi-round-trip-requests core-types inputrequests inputresponses inputrequiredresult supported-requests basic-workflow server-requirements-basic-workflow client-requirements-basic-workflow error-handling security-considerations",
    ),
    (
        "2026-07-28",
        "basic/patterns/progress",
        "progress-flow behavior-requirements implementation-notes",
    ),
    (
        "2026-07-28",
        "basic/patterns/subscriptions",
        "opening-a-stream notification-filter acknowledgment receiving-notifications multiple-concurrent-subscriptions cancellation graceful-closure",
    ),
    (
        "2026-07-28",
        "basic/transports",
        "messages request-metadata cancellation custom-transports backward-compatibility",
    ),
    (
        "2026-07-28",
        "basic/transports/stdio",
        "sending-messages receiving-messages request-metadata cancellation shutdown unexpected-termination backward-compatibility",
    ),
    (
        "2026-07-28",
        "basic/transports/streamable-http",
        "security--endpoint sending-messages receiving-messages message-flow cancellation request-metadata protocol-version-header standard-request-headers custom-headers-from-tool-parameters schema-extension value-encoding client-behavior server-behavior-for-custom-headers case-sensitivity server-validation backward-compatibility earlier-streamable-http-revisions httpsse-transport-2024-11-05",
    ),
    (
        "2026-07-28",
        "basic/versioning",
        "terminology protocol-version-negotiation extension-negotiation backward-compatibility-with-initialization-based-versions compatibility-matrix",
    ),
    (
        "2026-07-28",
        "changelog",
        "major-changes minor-changes deprecated other-schema-changes governance-and-process-updates process-changes full-changelog",
    ),
    (
        "2026-07-28",
        "client/elicitation",
        "user-interaction-model capabilities protocol-messages elicitation-requests form-mode-elicitation-requests requested-schema example-simple-text-request example-structured-data-request url-mode-elicitation-requests example-request-sensitive-data message-flow form-mode-flow url-mode-flow response-actions implementation-considerations statefulness url-mode-elicitation-for-sensitive-data url-mode-elicitation-for-oauth-flows understanding-the-distinction implementation-pattern error-handling security-considerations safe-url-handling identifying-the-user form-mode-security phishing",
    ),
    (
        "2026-07-28",
        "client/roots",
        "user-interaction-model capabilities protocol-messages listing-roots message-flow data-types root project-directory multiple-repositories error-handling security-considerations implementation-guidelines",
    ),
    (
        "2026-07-28",
        "client/sampling",
        "user-interaction-model tools-in-sampling capabilities protocol-messages creating-messages sampling-with-tools multi-turn-tool-loop message-content-constraints tool-result-messages tool-use-and-result-balance cross-api-compatibility message-roles tool-choice-modes parallel-tool-use message-flow data-types messages text-content image-content audio-content model-preferences capability-priorities model-hints system-prompt context-inclusion sampling-parameters result-fields error-handling security-considerations",
    ),
    ("2026-07-28", "deprecated", "deprecated removed"),
    (
        "2026-07-28",
        "",
        "overview key-details base-protocol features additional-utilities extensions security-and-trust--safety key-principles implementation-guidelines learn-more",
    ),
    ("2026-07-28", "schema", ""),
    (
        "2026-07-28",
        "server/discover",
        "request response when-to-call data-types discoverresult",
    ),
    ("2026-07-28", "server", ""),
    (
        "2026-07-28",
        "server/prompts",
        "user-interaction-model capabilities protocol-messages listing-prompts getting-a-prompt list-changed-notification message-flow data-types prompt promptmessage text-content image-content audio-content resource-links embedded-resources error-handling implementation-considerations security",
    ),
    (
        "2026-07-28",
        "server/resources",
        "user-interaction-model capabilities protocol-messages listing-resources reading-resources resource-templates list-changed-notification subscriptions message-flow data-types resource resource-contents text-content binary-content annotations common-uri-schemes https file git custom-uri-schemes error-handling security-considerations",
    ),
    (
        "2026-07-28",
        "server/tools",
        "user-interaction-model capabilities protocol-messages listing-tools calling-tools input-required-tool-results list-changed-notification message-flow data-types tool tool-names x-mcp-header tool-result text-content image-content audio-content resource-links embedded-resources structured-content output-schema schema-examples tool-with-default-2020-12-schema tool-with-explicit-draft-07-schema tool-with-no-parameters stateful-tools error-handling security-considerations",
    ),
    (
        "2026-07-28",
        "server/utilities/caching",
        "cacheable-results cache-key cacheable-model time-to-live-ttl-field freshness-calculation cache-scope-field choosing-a-cache-scope interaction-with-notifications interaction-with-pagination security-considerations",
    ),
    (
        "2026-07-28",
        "server/utilities/completion",
        "user-interaction-model capabilities protocol-messages requesting-completions reference-types completion-results message-flow data-types completerequest completeresult error-handling implementation-considerations security",
    ),
    (
        "2026-07-28",
        "server/utilities/logging",
        "user-interaction-model capabilities log-levels requesting-log-messages per-request-log-level protocol-messages log-message-notifications error-handling implementation-considerations security",
    ),
    (
        "2026-07-28",
        "server/utilities/pagination",
        "pagination-model response-format request-format pagination-flow operations-supporting-pagination implementation-guidelines error-handling",
    ),
];

/// The citations of one law and profile, written as the Markdown of
/// docs/laws.md: each source a link (a repository document relative to
/// `docs/`), a note after it as ` — note`.
pub(super) fn markdown(cites: &[Cite]) -> String {
    let mut line = String::new();
    for cite in cites {
        if let Cite::Note(note) = cite {
            line.push_str(" — ");
            line.push_str(note);
            continue;
        }
        if !line.is_empty() {
            line.push_str("; ");
        }
        let target = cite.target().unwrap_or_default();
        let target = target.strip_prefix("docs/").map_or_else(
            || match target.strip_prefix("https://") {
                Some(_) => target.clone(),
                None => format!("../{target}"),
            },
            str::to_owned,
        );
        let name = match cite {
            Cite::Mcp(revision, page, "") => {
                format!("MCP {revision} {page}")
            }
            Cite::Mcp(revision, page, anchor) => format!("MCP {revision} {page}#{anchor}"),
            _ => cite.name().unwrap_or_default(),
        };
        line.push_str(&format!("[{name}]({target})"));
    }
    line
}

/// The anchors a Markdown document of the repository has: its headings'
/// (as GitHub makes them) and its explicit `id="…"`s.
fn anchors(text: &str) -> Vec<String> {
    let mut anchors = Vec::new();
    let mut in_code = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code {
            continue;
        }
        if let Some(heading) = line.strip_prefix('#') {
            let heading = heading.trim_start_matches('#');
            if heading.starts_with(' ') {
                anchors.push(slug(heading.trim()));
            }
        }
        for (at, _) in line.match_indices("id=\"") {
            let rest = &line[at + 4..];
            if let Some((id, _)) = rest.split_once('"') {
                anchors.push(id.to_owned());
            }
        }
    }
    anchors
}

/// What is wrong with one source, or `None` when it opens: `root` is the
/// repository's root.
fn problem(root: &Path, cite: &Cite) -> Option<String> {
    let document = |path: &str, anchor: &str| -> Option<String> {
        if path.starts_with('/') || path.split('/').any(|part| part == ".." || part.is_empty()) {
            return Some(format!("`{path}` is no path inside the repository"));
        }
        let text = match std::fs::read_to_string(root.join(path)) {
            Ok(text) => text,
            Err(err) => return Some(format!("`{path}` is no document of the repository: {err}")),
        };
        if anchors(&text).iter().any(|found| found == anchor) {
            None
        } else {
            Some(format!("`{path}` has no section `#{anchor}`"))
        }
    };
    match *cite {
        Cite::McpCore(..) | Cite::ReqC032(_) | Cite::Doc(..) => {
            let target = cite.target().expect("a source has a target");
            let (path, anchor) = target
                .split_once('#')
                .expect("a repository target has an anchor");
            if matches!(cite, Cite::Doc(_, _, name) if name.trim().is_empty()) {
                return Some(format!("`{target}` is cited with no name"));
            }
            document(path, anchor)
        }
        Cite::Mcp(revision, page, anchor) => {
            if !Revision::ALL.iter().any(|known| known.as_str() == revision) {
                return Some(format!("MCP has no revision `{revision}`"));
            }
            let Some((_, _, anchors)) = SPEC_PAGES
                .iter()
                .find(|(known, path, _)| *known == revision && *path == page)
            else {
                return Some(format!(
                    "MCP {revision} has no page `{page}` (SPEC_PAGES lists them)"
                ));
            };
            if anchor.is_empty() || anchors.split(' ').any(|known| known == anchor) {
                None
            } else {
                Some(format!(
                    "MCP {revision} {page} has no section `#{anchor}` (SPEC_PAGES lists them)"
                ))
            }
        }
        Cite::JsonRpc(section) => (!JSON_RPC_SECTIONS
            .iter()
            .any(|(number, _, _)| *number == section))
        .then(|| format!("JSON-RPC 2.0 has no section §{section} (JSON_RPC_SECTIONS lists them)")),
        Cite::Note(note) => note.trim().is_empty().then(|| "an empty note".to_owned()),
    }
}

/// What is wrong with one law's citations in one profile: no source, a
/// note that follows no source, or a source that does not open.
fn problems(root: &Path, cites: &[Cite]) -> Vec<String> {
    let mut found = Vec::new();
    if !cites.iter().any(|cite| !matches!(cite, Cite::Note(_))) {
        found.push("no source".to_owned());
    }
    for (at, cite) in cites.iter().enumerate() {
        if matches!(cite, Cite::Note(_)) && (at == 0 || matches!(cites[at - 1], Cite::Note(_))) {
            found.push("a note that follows no source".to_owned());
        }
        found.extend(problem(root, cite));
    }
    found
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every citation of the catalog, in every profile that grades the law,
/// opens: each source is a section of a document of the repository, of a
/// page of the MCP specification, or of JSON-RPC 2.0; a profile that does
/// not grade a law cites nothing for it.
#[test]
fn every_citation_of_the_catalog_opens() {
    let mut wrong = Vec::new();
    for law in CATALOG {
        for profile in [Profile::Core, Profile::Spec] {
            let cites = law.cites(profile);
            if law.severity(profile).is_none() {
                if !cites.is_empty() {
                    wrong.push(format!(
                        "{} ({profile}): cites without grading the law",
                        law.id
                    ));
                }
                continue;
            }
            for problem in problems(root(), cites) {
                wrong.push(format!("{} ({profile}): {problem}", law.id));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "citations that do not open:\n{}",
        wrong.join("\n")
    );
}

/// Every citation of the requirement registry opens, as the catalog's do.
#[test]
fn every_citation_of_the_registry_opens() {
    let mut wrong = Vec::new();
    for requirement in super::registry::REGISTRY {
        for problem in problems(root(), requirement.cites) {
            wrong.push(format!("{}: {problem}", requirement.id));
        }
    }
    assert!(
        wrong.is_empty(),
        "citations that do not open:\n{}",
        wrong.join("\n")
    );
}

/// The check above fails what does not open: a section or document that
/// is not there, a place outside the repository, a page or revision the
/// specification does not have, a JSON-RPC section that does not exist, a
/// note alone.
#[test]
fn a_citation_that_does_not_open_is_named() {
    let cases: &[(&[Cite], &str)] = &[
        (&[Cite::McpCore(2, 15)], ""),
        (
            &[Cite::McpCore(2, 31)],
            "`docs/mcp-core.md` has no section `#s2p31`",
        ),
        (&[Cite::ReqC032("Exit codes")], ""),
        (
            &[Cite::ReqC032("Exit code")],
            "`docs/req-c-032.md` has no section `#exit-code`",
        ),
        (&[Cite::Doc("docs/laws.md", "profiles", "the profiles")], ""),
        (
            &[Cite::Doc("docs/laws.md", "profile", "the profiles")],
            "`docs/laws.md` has no section `#profile`",
        ),
        (
            &[Cite::Doc("spec/README.md", "7-laws", "the digest")],
            "`spec/README.md` is no document of the repository",
        ),
        (
            &[Cite::Doc("../shared/spec/README.md", "x", "the digest")],
            "is no path inside the repository",
        ),
        (
            &[Cite::Mcp("2025-11-25", "server/tools", "error-handling")],
            "",
        ),
        (&[Cite::Mcp("2025-11-25", "server/tools", "")], ""),
        (
            &[Cite::Mcp("2025-11-25", "server/tool", "error-handling")],
            "MCP 2025-11-25 has no page `server/tool`",
        ),
        (
            &[Cite::Mcp("2025-11-25", "server/tools", "errors")],
            "has no section `#errors`",
        ),
        (
            &[Cite::Mcp("2025-12-01", "server/tools", "")],
            "MCP has no revision `2025-12-01`",
        ),
        (
            &[Cite::Mcp("2026-07-28", "basic/utilities/ping", "")],
            "MCP 2026-07-28 has no page `basic/utilities/ping`",
        ),
        (&[Cite::JsonRpc("5.1")], ""),
        (&[Cite::JsonRpc("5.3")], "JSON-RPC 2.0 has no section §5.3"),
        (&[Cite::Note("a word")], "no source"),
        (
            &[Cite::JsonRpc("5"), Cite::Note("a"), Cite::Note("b")],
            "a note that follows no source",
        ),
    ];
    for (cites, expected) in cases {
        let found = problems(root(), cites).join("; ");
        if expected.is_empty() {
            assert!(found.is_empty(), "{cites:?}: {found}");
        } else {
            assert!(
                found.contains(expected),
                "{cites:?}: `{found}` does not say `{expected}`"
            );
        }
    }
}

/// A citation is written as one line: a name and where it opens, a page of
/// the specification as its URL, notes after their source.
#[test]
fn citations_render_with_where_they_open() {
    let cites = [
        Cite::McpCore(1, 9),
        Cite::ReqC032("Before serving"),
        Cite::Mcp("2025-11-25", "server/tools", "error-handling"),
        Cite::Note("unknown tools are protocol errors"),
        Cite::JsonRpc("4.1"),
        Cite::Doc("docs/transcript-format.md", "lines", "the recorded lines"),
    ];
    assert_eq!(
        super::render_cites(&cites),
        "MCP-CORE r1 §1¶09 (docs/mcp-core.md#s1p09); \
         REQ-C-032 \"Before serving\" (docs/req-c-032.md#before-serving); \
         https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling — unknown tools are protocol errors; \
         JSON-RPC 2.0 §4.1 (https://www.jsonrpc.org/specification#notification); \
         the recorded lines (docs/transcript-format.md#lines)"
    );
    assert_eq!(
        markdown(&cites),
        "[MCP-CORE r1 §1¶09](mcp-core.md#s1p09); \
         [REQ-C-032 \"Before serving\"](req-c-032.md#before-serving); \
         [MCP 2025-11-25 server/tools#error-handling](https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling) — unknown tools are protocol errors; \
         [JSON-RPC 2.0 §4.1](https://www.jsonrpc.org/specification#notification); \
         [the recorded lines](transcript-format.md#lines)"
    );
    assert_eq!(
        super::render_cites(&[Cite::Mcp("2026-07-28", "basic/transports/stdio", "")]),
        "https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio"
    );
}

/// The paragraphs of MCP-CORE r1 that docs/mcp-core.md holds, by their
/// anchors, as `(section, paragraph)`.
pub(crate) fn mcp_core_paragraphs() -> Vec<(u32, u32)> {
    let text = include_str!("../../docs/mcp-core.md");
    anchors(text)
        .iter()
        .filter_map(|anchor| {
            let (section, paragraph) = anchor.strip_prefix('s')?.split_once('p')?;
            Some((section.parse().ok()?, paragraph.parse().ok()?))
        })
        .collect()
}
