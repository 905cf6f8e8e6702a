-- script: none.json
-- :GeminiLogin (and :Gemini login) send gemini/login to the real
-- gemini-ls, which shows Google's sign-in page (PKCE, a loopback redirect
-- URI) and waits for the browser; a redirect with a forged state fails
-- the sign-in, and the user is told why.
vim.env.GEMINI_API_KEY = nil
local gemini = require("gemini")
local notes = {}
vim.notify = function(msg, level)
  table.insert(notes, { msg = msg, level = level })
end
gemini.setup({ cmd = { os.getenv("GEMINI_LS") } })

-- The browser: what the plugin opens (window/showDocument, external).
local opened
gemini.open_external = function(uri)
  opened = uri
  return true
end

-- browse is the browser following the redirect: a GET on loopback over
-- Neovim's own libuv, so the test needs no HTTP client installed.
local function browse(url)
  local host, port, path = url:match("^http://([%d%.]+):(%d+)(/.*)$")
  assert(host, url)
  local tcp = vim.loop.new_tcp()
  local ended = false
  tcp:connect(host, tonumber(port), function(err)
    assert(not err, err)
    tcp:write("GET " .. path .. " HTTP/1.0\r\nHost: " .. host .. "\r\n\r\n")
    tcp:read_start(function(_, data)
      if not data then
        tcp:close()
        ended = true
      end
    end)
  end)
  wait_for("the redirect's answer", function() return ended end, 10000)
end

local function find_note(pattern)
  for _, n in ipairs(notes) do
    if n.msg:find(pattern) then
      return n
    end
  end
end

describe("login", function()
  it("signs in through gemini/login, and a forged state is refused", function()
    vim.cmd("edit notes.txt")
    local done
    gemini.login(false, function(err, result)
      done = { err = err, result = result }
    end)
    wait_for("the sign-in page", function() return opened ~= nil end, 15000)
    local url = opened
    assert(url:find("^https://accounts%.google%.com/"), url)
    assert(url:find("code_challenge_method=S256", 1, true), url)
    local redirect = vim.uri_decode and vim.uri_decode(url:match("redirect_uri=([^&]+)")) or url:match("redirect_uri=([^&]+)"):gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end)
    assert(redirect:find("^http://127%.0%.0%.1:%d+/oauth2callback$"), redirect)
    -- The browser comes back with a state the server did not send.
    browse(redirect .. "?code=stolen&state=forged")
    wait_for("the sign-in to end", function() return done ~= nil end, 15000)
    assert(done.err, "the forged sign-in succeeded: " .. vim.inspect(done))
    local told = find_note("OAuth state mismatch")
    assert(told and told.level == vim.log.levels.ERROR, vim.inspect(notes))
  end)

  it("tells who signed in", function()
    local msg, level = gemini.login_message({ email = "ada@example.com", auth = { type = "oauth-personal", usable = true } })
    eq("Gemini: signed in with Google as ada@example.com.", msg, "message")
    eq(vim.log.levels.INFO, level, "level")
    msg, level = gemini.login_message({ email = "", auth = { type = "gemini-api-key", source = "settings", usable = true } })
    assert(msg:find('uses gemini-api-key (from settings); set security.auth.selectedType to "oauth-personal"', 1, true), msg)
    eq(vim.log.levels.WARN, level, "level")
  end)

  it(":Gemini login starts the sign-in too", function()
    local sent
    local client = gemini.client()
    local request = client.request
    client.request = function(...)
      local args = { ... }
      for _, a in ipairs(args) do
        if a == "gemini/login" then
          sent = true
        end
      end
      return request(...)
    end
    vim.cmd("Gemini login")
    wait_for("gemini/login", function() return sent end, 15000)
    client.request = request
  end)
end)
