//! The checks that keep the test list and the docs in step with the
//! contract and with the code.

/// The numbered paragraphs of MCP-CORE r1, by section.
const PARAGRAPHS: [(u32, std::ops::RangeInclusive<u32>); 5] = [
    (1, 5..=11),
    (2, 12..=15),
    (3, 16..=20),
    (4, 21..=26),
    (5, 27..=29),
];

/// The citations (`§S¶NN`, or a range `§S¶NN-MM`) in `text`.
fn citations(text: &str) -> Vec<(u32, u32)> {
    let mut res = Vec::new();
    for (_, rest) in text
        .match_indices('§')
        .map(|(at, _)| text.split_at(at + '§'.len_utf8()))
    {
        let Some((section, rest)) = rest.split_once('¶') else {
            continue;
        };
        let Ok(section) = section.parse::<u32>() else {
            continue;
        };
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        let Ok(first) = digits.parse::<u32>() else {
            continue;
        };
        let last = rest[digits.len()..]
            .strip_prefix('-')
            .map(|tail| {
                tail.chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
            })
            .and_then(|last| last.parse::<u32>().ok())
            .unwrap_or(first);
        res.extend((first..=last).map(|paragraph| (section, paragraph)));
    }
    res
}

/// The doc comments right above each `#[test]` in `source`.
fn test_docs(source: &str) -> Vec<String> {
    let lines: Vec<&str> = source.lines().collect();
    let mut res = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.trim() != "#[test]" {
            continue;
        }
        let doc: Vec<&str> = lines[..index]
            .iter()
            .rev()
            .map(|line| line.trim())
            .take_while(|line| line.starts_with("///"))
            .collect();
        res.push(doc.into_iter().rev().collect::<Vec<_>>().join("\n"));
    }
    res
}

/// Every numbered paragraph of MCP-CORE r1 is named by the doc comment of
/// at least one test, and the list of paragraphs is docs/mcp-core.md's.
#[test]
fn every_paragraph_of_the_contract_has_a_test() {
    let sources = [
        include_str!("mod.rs"),
        include_str!("contract.rs"),
        include_str!("property.rs"),
        include_str!("../tools.rs"),
        include_str!("../transport.rs"),
        include_str!("../../schema/validate.rs"),
        include_str!("../../../tests/capture.rs"),
        include_str!("../../../tests/cli/demo_server.rs"),
    ];
    let named: std::collections::BTreeSet<(u32, u32)> = sources
        .iter()
        .flat_map(|source| test_docs(source))
        .flat_map(|doc| citations(&doc))
        .collect();
    let mut missing = Vec::new();
    for (section, paragraphs) in PARAGRAPHS {
        for paragraph in paragraphs {
            if !named.contains(&(section, paragraph)) {
                missing.push(format!("§{section}¶{paragraph:02}"));
            }
        }
    }
    assert!(missing.is_empty(), "no test names {missing:?}");

    // The paragraphs are docs/mcp-core.md's, the contract as the
    // repository states it.
    let listed: Vec<(u32, u32)> = PARAGRAPHS
        .iter()
        .flat_map(|(section, range)| range.clone().map(|paragraph| (*section, paragraph)))
        .collect();
    assert_eq!(crate::laws::citations::mcp_core_paragraphs(), listed);
}

#[test]
fn citations_read_single_paragraphs_and_ranges() {
    assert_eq!(
        citations("MCP-CORE r1 §1¶08-10 and §4¶24, not § or ¶3, §2¶7"),
        [(1, 8), (1, 9), (1, 10), (4, 24), (2, 7)]
    );
}
