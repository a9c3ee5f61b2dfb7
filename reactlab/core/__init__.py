"""The article's system: the loop, what it records, the client, the tools and the working copy.

It imports nothing of the course around it (replay, samples, runner, widgets, the checks, the CLI).
Read in this order:

    agent.py       Agent: the history, _validate, _execute, the limits (the loop is Agent._loop)
    record.py      RunRecord: every request, response, tool execution and the stop reason
    protocols.py   the shapes the agent depends on: Tool, ChatClient, Completion
    client.py      DeepSeekClient: request_body (what is sent) and send (what comes back, checked)
    providers.py   what each server accepts (DeepSeek, OpenAI, Azure, Groq, Ollama, llama.cpp, ...)
    tools/         read_file, bash and edit, one file each; base.py, and schema.py checks their arguments
    workspace.py   a private working copy per run (the original is never written)
    errors.py      every exception, drawn as a tree
    prompts.py     the system prompts and the failing-test task
    language.py    say("English sentence") and set_language; ru.py is the Russian catalogue (data)
    slips/         real servers' slips: skip on a first reading
    sandbox/       bash's Bubblewrap sandbox, with its host-side walk (walk.py)
"""
