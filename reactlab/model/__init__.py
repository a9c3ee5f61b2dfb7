"""The model side: everything between the agent and a chat-completions server.

client.py       DeepSeekClient: request_body (what is sent) and send (what comes back, checked)
http_errors.py  what an error answer means: one typed error per case, quoting the server's reason
providers.py    what each server accepts (DeepSeek, OpenAI, Azure, Groq, OpenRouter, Gemini, Ollama, ...)
repair.py       known slips in a server's answer: refused by name, or mended with repair=True
truncation.py   tool-call arguments cut off mid-JSON, whatever finish_reason says: a truncated answer
cassette.py     record and replay answers at the httpx transport
scripted.py     Script: write the model's answers in Python
unix_socket.py  a base URL on a unix socket (unix:/path/server.sock:/v1): out of other users' reach
llama_server.py start llama.cpp's llama-server with a tiny test model on such a socket: live, no key, no network
"""
