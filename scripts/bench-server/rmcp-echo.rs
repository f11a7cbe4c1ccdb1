//! The rmcp reference: an rmcp stdio server with the demo server's `echo`
//! tool, written the way rmcp's documentation shows.

use rmcp::handler::server::wrapper::Parameters;
use rmcp::transport::stdio;
use rmcp::{ServiceExt, tool, tool_router};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to answer with.
    text: String,
}

#[derive(Debug, Clone)]
struct Echo;

#[tool_router(server_handler)]
impl Echo {
    #[tool(description = "Answers with the text it is given.")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Echo.serve(stdio()).await?;
    service.waiting().await?;
    Ok(())
}
