package redisstore

import "github.com/redis/go-redis/v9"

// The scripts run atomically in Redis, each on the keys of one hash slot:
// a task's own (its record and its lease, both tagged {id}) or a
// principal's. A task's record is a hash: v, a version that every change
// increments; d, the server.Task as JSON; s, its status.

// readScript returns {v, d, lapsed} of task KEYS[1], or nil: lapsed is 1
// when the task is not terminal and its lease KEYS[2] has expired.
var readScript = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'v', 'd', 's')
if not r[1] then return false end
local lapsed = 0
if r[3] ~= 'completed' and r[3] ~= 'failed' and r[3] ~= 'cancelled' and redis.call('EXISTS', KEYS[2]) == 0 then
	lapsed = 1
end
return {r[1], r[2], lapsed}
`)

// casScript writes d ARGV[2] and status ARGV[3] to task KEYS[1] if its
// version is still ARGV[1], drops its lease KEYS[2] once it is terminal,
// and publishes d on the shard channel ARGV[4] (tagged as KEYS[1]) when
// the status changed: 1 if written, 0 if the task changed or is gone. A
// failed publish (a Redis before 7 knows no SPUBLISH) does not undo the
// write: only the push is lost.
var casScript = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'v', 's')
if r[1] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', tonumber(ARGV[1]) + 1, 'd', ARGV[2], 's', ARGV[3])
if ARGV[3] == 'completed' or ARGV[3] == 'failed' or ARGV[3] == 'cancelled' then
	redis.call('DEL', KEYS[2])
end
if r[2] ~= ARGV[3] then
	redis.pcall('SPUBLISH', ARGV[4], ARGV[2])
end
return 1
`)

// createScript records task KEYS[1] (d ARGV[1], status ARGV[2]) to expire
// at ARGV[3] (Unix ms), and its lease KEYS[2] for ARGV[4] ms: 1, or 0 if
// the id is taken.
var createScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', 1, 'd', ARGV[1], 's', ARGV[2])
redis.call('PEXPIREAT', KEYS[1], ARGV[3])
redis.call('SET', KEYS[2], 1, 'PX', ARGV[4])
return 1
`)

// holdScript adds task ARGV[3], expiring at ARGV[4] (Unix ms), to the
// principal's set KEYS[1], after dropping the tasks expired at ARGV[1],
// unless it holds ARGV[2] of them (negative: no bound): the count held
// then, or minus the count held when full.
var holdScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
local max = tonumber(ARGV[2])
if max >= 0 and n >= max then return -n end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[3])
if redis.call('PEXPIRETIME', KEYS[1]) < tonumber(ARGV[4]) then
	redis.call('PEXPIREAT', KEYS[1], ARGV[4])
end
return n + 1
`)

// leaseScript refreshes the lease KEYS[2] of task KEYS[1] for ARGV[1] ms
// while it is not terminal: its status, or "gone".
var leaseScript = redis.NewScript(`
local s = redis.call('HGET', KEYS[1], 's')
if not s then return 'gone' end
if s == 'completed' or s == 'failed' or s == 'cancelled' then
	redis.call('DEL', KEYS[2])
	return s
end
redis.call('SET', KEYS[2], 1, 'PX', ARGV[1])
return s
`)

// scripts are every script of the package.
var scripts = []*redis.Script{readScript, casScript, createScript, holdScript, leaseScript}
