//! The registries' methods: capabilities for what is registered, and
//! resources and prompts listed, read and filled in, in both eras.

use serde_json::{Value, json};

use super::*;

/// `server/discover` alike, and the methods of what is not are unknown.
#[test]
fn capabilities_only_for_what_is_registered() {
    let plain = Server::new("plain", "1", ToolSet::new());
    let full = open_server();
    for (server, has) in [(&plain, false), (&full, true)] {
        let legacy = served(
            server,
            Revision::V2025_11_25,
            &[
                initialize("2025-11-25"),
                request(1, "resources/list", json!({})),
                request(2, "prompts/list", json!({})),
            ],
        );
        let discovered = served(
            server,
            MODERN,
            &[modern(1, "server/discover", json!({}), json!({}))],
        );
        for capabilities in [
            &legacy[0]["result"]["capabilities"],
            &discovered[0]["result"]["capabilities"],
        ] {
            assert_eq!(capabilities["tools"], json!({"listChanged": false}));
            assert_eq!(
                capabilities.get("resources").is_some(),
                has,
                "{capabilities}"
            );
            assert_eq!(capabilities.get("prompts").is_some(), has, "{capabilities}");
            assert_eq!(capabilities.get("logging").is_some(), has, "{capabilities}");
        }
        assert_eq!(error_code(&legacy[1]).is_some(), !has);
        assert_eq!(error_code(&legacy[2]).is_some(), !has);
        if !has {
            assert_eq!(error_code(&legacy[1]), Some(-32601));
        }
    }
    let templates_only = Server::new("t", "1", ToolSet::new()).with_resources(
        ResourceSet::new().with_template(ResourceTemplate::new("x://{id}", "x"), |_| {
            Err(ResourceError::NotFound)
        }),
    );
    let answers = served(
        &templates_only,
        Revision::V2025_06_18,
        &[initialize("2025-06-18")],
    );
    assert_eq!(
        answers[0]["result"]["capabilities"]["resources"],
        json!({"subscribe": false, "listChanged": false})
    );
}

/// through 2025-11-25 and -32602 on 2026-07-28; a failed read is -32603.
#[test]
fn resources_list_and_read_in_both_eras() {
    let server = open_server();
    for revision in [Revision::V2024_11_05, Revision::V2025_11_25, MODERN] {
        let read = |id, uri: &str| {
            let params = json!({"uri": uri});
            if revision.is_modern() {
                modern(id, "resources/read", params, json!({}))
            } else {
                request(id, "resources/read", params)
            }
        };
        let list = |id, method: &str| {
            if revision.is_modern() {
                modern(id, method, json!({}), json!({}))
            } else {
                request(id, method, json!({}))
            }
        };
        let mut lines = vec![
            list(1, "resources/list"),
            list(2, "resources/templates/list"),
            read(3, "notes://index"),
            read(4, "notes://1"),
            read(5, "notes://2"),
            read(6, "notes://broken"),
            read(7, "a://first"),
            request(8, "resources/read", json!({})),
        ];
        if !revision.is_modern() {
            lines.insert(0, initialize(revision.as_str()));
        }
        let answers = served(&server, revision, &lines);
        let listed = &answer(&answers, 1)["result"];
        let uris: Vec<_> = listed["resources"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["uri"].as_str().unwrap())
            .collect();
        assert_eq!(uris, ["a://first", "notes://broken", "notes://index"]);
        assert_eq!(
            listed["resources"][2].get("title").is_some(),
            revision.titles(),
            "{revision}"
        );
        let templates = &answer(&answers, 2)["result"]["resourceTemplates"];
        assert_eq!(
            templates,
            &json!([{"uriTemplate": "notes://{id}", "name": "note"}])
        );
        assert_eq!(
            answer(&answers, 3)["result"]["contents"],
            json!([{"uri": "notes://index", "text": "1, 2"}])
        );
        assert_eq!(
            answer(&answers, 4)["result"]["contents"][0]["text"],
            "first note"
        );
        let missing = if revision.is_modern() { -32602 } else { -32002 };
        assert_eq!(error_code(answer(&answers, 5)), Some(missing), "{revision}");
        assert_eq!(answer(&answers, 5)["error"]["data"]["uri"], "notes://2");
        assert_eq!(error_code(answer(&answers, 6)), Some(-32603));
        assert_eq!(answer(&answers, 7)["result"]["contents"][0]["blob"], "AAE=");
        assert_eq!(error_code(answer(&answers, 8)), Some(-32602));
        for id in [1, 2, 3] {
            let result = &answer(&answers, id)["result"];
            assert_eq!(result.get("resultType").is_some(), revision.is_modern());
            assert_eq!(result.get("ttlMs").is_some(), revision.is_modern());
            assert_eq!(result.get("cacheScope").is_some(), revision.is_modern());
        }
        let methods = [
            "resources/list",
            "resources/templates/list",
            "resources/read",
        ];
        for (id, method) in [(1, methods[0]), (2, methods[1]), (3, methods[2])] {
            let violations =
                crate::model::validate_result(revision, method, &answer(&answers, id)["result"]);
            assert!(violations.is_empty(), "{revision} {method}: {violations:?}");
        }
    }
}

/// that is no string is -32602; a failing handler is -32603.
#[test]
fn prompts_list_and_get_in_both_eras() {
    let server = open_server();
    for revision in [Revision::V2025_03_26, Revision::V2025_06_18, MODERN] {
        let req = |id, method: &str, params: Value| {
            if revision.is_modern() {
                modern(id, method, params, json!({}))
            } else {
                request(id, method, params)
            }
        };
        let get = |id, args: Value| {
            req(
                id,
                "prompts/get",
                json!({"name": "summarize", "arguments": args}),
            )
        };
        let mut lines = vec![
            req(1, "prompts/list", json!({})),
            get(2, json!({"id": "7"})),
            get(3, json!({})),
            get(4, json!({"id": "7", "tone": "dry"})),
            get(5, json!({"id": 7})),
            req(6, "prompts/get", json!({"name": "nothing"})),
            req(7, "prompts/get", json!({"name": "broken"})),
            get(8, json!({"id": "7", "style": "briefly"})),
        ];
        if !revision.is_modern() {
            lines.insert(0, initialize(revision.as_str()));
        }
        let answers = served(&server, revision, &lines);
        let list = &answer(&answers, 1)["result"];
        let names: Vec<_> = list["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a-first", "broken", "summarize"]);
        let argument = &list["prompts"][2]["arguments"][0];
        assert_eq!(argument["required"], true);
        assert_eq!(argument.get("title").is_some(), revision.titles());
        let got = &answer(&answers, 2)["result"];
        assert_eq!(
            got["messages"],
            json!([{"role": "user", "content": {"type": "text", "text": "Summarize note 7 plainly"}}])
        );
        assert_eq!(got.get("resultType").is_some(), revision.is_modern());
        assert!(got.get("ttlMs").is_none());
        for id in [3, 4, 5, 6] {
            assert_eq!(error_code(answer(&answers, id)), Some(-32602), "{id}");
        }
        assert_eq!(error_code(answer(&answers, 7)), Some(-32603));
        assert_eq!(
            answer(&answers, 8)["result"]["messages"][0]["content"]["text"],
            "Summarize note 7 briefly"
        );
        for (id, method) in [(1, "prompts/list"), (2, "prompts/get")] {
            let violations =
                crate::model::validate_result(revision, method, &answer(&answers, id)["result"]);
            assert!(violations.is_empty(), "{revision} {method}: {violations:?}");
        }
    }
}
