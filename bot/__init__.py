"""The Slack adapter: Bolt app, listeners and Block Kit renderers over the advisor library."""
