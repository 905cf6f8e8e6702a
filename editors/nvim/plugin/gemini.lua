require("gemini.usercommands").define()
