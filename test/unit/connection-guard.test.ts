import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addressGroup } from '../../src/http/connection-guard.ts';

test('IPv4 addresses count as themselves, IPv4-mapped ones too', () => {
  assert.equal(addressGroup('127.0.0.3'), '127.0.0.3');
  assert.equal(addressGroup('::ffff:10.1.2.3'), '10.1.2.3');
});

test('IPv6 addresses count by their /64, however they are written', () => {
  const a = addressGroup('2001:db8:0:1:aaaa::1');
  assert.equal(a, '2001:db8:0:1::/64');
  assert.equal(addressGroup('2001:0db8:0000:0001:ffff:ffff:ffff:ffff'), a);
  assert.equal(addressGroup('2001:db8::1:0:0:0:2'), '2001:db8:0:1::/64');
  assert.notEqual(addressGroup('2001:db8:0:2::1'), a);
  assert.equal(addressGroup('::1'), '0:0:0:0::/64');
  assert.equal(addressGroup('fe80::1%eth0'), 'fe80:0:0:0::/64');
});
