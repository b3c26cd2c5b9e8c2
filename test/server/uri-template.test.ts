import { describe, expect, it } from 'vitest';
import { UriTemplate } from '../../src/server/uri-template.js';

describe('UriTemplate: the conformance template', () => {
  const template = new UriTemplate('test://template/{id}/data');

  it('matches test://template/123/data as {id: "123"}', () => {
    expect(template.match('test://template/123/data')).toEqual({ id: '123' });
  });

  it('does not let a simple variable span a slash', () => {
    expect(template.match('test://template/1/2/data')).toBeNull();
  });

  it('does not match other URIs', () => {
    expect(template.match('test://template/123')).toBeNull();
    expect(template.match('test://template/123/data/more')).toBeNull();
    expect(template.match('test://other/123/data')).toBeNull();
    expect(template.match('xtest://template/123/data')).toBeNull();
  });

  it('lists its variable names', () => {
    expect(template.variableNames).toEqual(['id']);
  });

  it('expands {id}', () => {
    expect(template.expand({ id: '123' })).toBe('test://template/123/data');
  });
});

describe('UriTemplate: simple {var}', () => {
  it('matches and percent-decodes the value', () => {
    expect(new UriTemplate('file:///notes/{name}').match('file:///notes/hello%20world%21')).toEqual({ name: 'hello world!' });
  });

  it('keeps a value whose percent-encoding is malformed as it is', () => {
    expect(new UriTemplate('file:///notes/{name}').match('file:///notes/100%zz')).toEqual({ name: '100%zz' });
  });

  it('does not let a simple variable span ? or #', () => {
    expect(new UriTemplate('a://b/{x}').match('a://b/c?d')).toBeNull();
    expect(new UriTemplate('a://b/{x}').match('a://b/c#d')).toBeNull();
  });

  it('percent-encodes reserved characters when expanding', () => {
    expect(new UriTemplate('file:///notes/{name}').expand({ name: 'a b/c?d' })).toBe('file:///notes/a%20b%2Fc%3Fd');
  });

  it('round-trips a value with spaces and slashes through expand and match', () => {
    const template = new UriTemplate('file:///notes/{name}');
    expect(template.match(template.expand({ name: 'my notes/2025 plan' }))).toEqual({ name: 'my notes/2025 plan' });
  });

  it('expands an undefined variable to nothing', () => {
    expect(new UriTemplate('a://b/{x}').expand({})).toBe('a://b/');
  });

  it('matches several variables in one template', () => {
    const template = new UriTemplate('users://{userId}/posts/{postId}');
    expect(template.variableNames).toEqual(['userId', 'postId']);
    expect(template.match('users://42/posts/a%2Fb')).toEqual({ userId: '42', postId: 'a/b' });
    expect(template.expand({ userId: '42', postId: '7' })).toBe('users://42/posts/7');
  });

  it('matches a comma-separated list {x,y}', () => {
    const template = new UriTemplate('map://{x,y}');
    expect(template.match('map://1024,768')).toEqual({ x: '1024', y: '768' });
    expect(template.expand({ x: '1024', y: '768' })).toBe('map://1024,768');
  });

  it('strips the explode and prefix modifiers from variable names', () => {
    expect(new UriTemplate('a://{list*}/{name:3}').variableNames).toEqual(['list', 'name']);
  });

  it('escapes regex characters in the literal parts', () => {
    const template = new UriTemplate('a+b://x.y/(z)/{id}');
    expect(template.match('a+b://x.y/(z)/1')).toEqual({ id: '1' });
    expect(template.match('aab://xzy/(z)/1')).toBeNull();
  });

  it('a template without expressions matches only itself', () => {
    const template = new UriTemplate('config://app');
    expect(template.variableNames).toEqual([]);
    expect(template.match('config://app')).toEqual({});
    expect(template.match('config://app2')).toBeNull();
    expect(template.expand({ x: '1' })).toBe('config://app');
  });

  it('throws for a template with an unclosed or empty expression', () => {
    expect(() => new UriTemplate('test://{')).toThrow("Invalid URI template 'test://{': unbalanced { or }");
    expect(() => new UriTemplate('test://{}')).toThrow("Invalid URI template 'test://{}': unbalanced { or }");
    expect(() => new UriTemplate('{a}/{b')).toThrow("Invalid URI template '{a}/{b': unbalanced { or }");
    expect(() => new UriTemplate('{a}}')).toThrow(TypeError);
  });
});

describe('UriTemplate: reserved {+var}', () => {
  const template = new UriTemplate('file:///{+path}');

  it('matches a value that spans slashes, without decoding it', () => {
    expect(template.match('file:///home/user/notes.txt')).toEqual({ path: 'home/user/notes.txt' });
  });

  it('keeps reserved characters when expanding', () => {
    expect(template.expand({ path: 'home/user/a b.txt' })).toBe('file:///home/user/a%20b.txt');
  });

  it('matches with a literal suffix after the reserved variable', () => {
    expect(new UriTemplate('repo://{+path}/README').match('repo://a/b/c/README')).toEqual({ path: 'a/b/c' });
  });

  it('does not match a different scheme', () => {
    expect(template.match('http:///home')).toBeNull();
  });
});

describe('UriTemplate: fragment {#var}', () => {
  const template = new UriTemplate('doc://page{#section}');

  it('matches the fragment', () => {
    expect(template.match('doc://page#intro')).toEqual({ section: 'intro' });
  });

  it('matches without a fragment and leaves the variable out', () => {
    expect(template.match('doc://page')).toEqual({});
  });

  it('expands with a leading #', () => {
    expect(template.expand({ section: 'a/b' })).toBe('doc://page#a/b');
    expect(template.expand({})).toBe('doc://page');
  });

  it('does not match a URI with something else after the literal part', () => {
    expect(template.match('doc://pagex#intro')).toBeNull();
  });
});

describe('UriTemplate: path segments {/var}', () => {
  it('matches one segment', () => {
    expect(new UriTemplate('api://v1{/resource}').match('api://v1/users')).toEqual({ resource: 'users' });
  });

  it('matches without the segment and leaves the variable out', () => {
    expect(new UriTemplate('api://v1{/resource}').match('api://v1')).toEqual({});
  });

  it('matches several segments {/a,b}', () => {
    const template = new UriTemplate('api://v1{/kind,id}');
    expect(template.match('api://v1/users/42')).toEqual({ kind: 'users', id: '42' });
    expect(template.expand({ kind: 'users', id: '42' })).toBe('api://v1/users/42');
  });

  it('expands with a leading slash and encodes slashes in values', () => {
    expect(new UriTemplate('api://v1{/resource}').expand({ resource: 'a/b' })).toBe('api://v1/a%2Fb');
  });

  it('percent-decodes matched segments', () => {
    expect(new UriTemplate('api://v1{/resource}').match('api://v1/a%20b')).toEqual({ resource: 'a b' });
  });

  it('does not match without the leading slash', () => {
    expect(new UriTemplate('api://v1{/resource}').match('api://v1users')).toBeNull();
  });
});

describe('UriTemplate: label {.var}', () => {
  it('matches a dot-prefixed label', () => {
    expect(new UriTemplate('file://report{.ext}').match('file://report.pdf')).toEqual({ ext: 'pdf' });
  });

  it('matches several labels {.a,b}', () => {
    const template = new UriTemplate('host://www{.domain,tld}');
    expect(template.match('host://www.example.com')).toEqual({ domain: 'example', tld: 'com' });
    expect(template.expand({ domain: 'example', tld: 'com' })).toBe('host://www.example.com');
  });

  it('expands with a leading dot', () => {
    expect(new UriTemplate('file://report{.ext}').expand({ ext: 'pdf' })).toBe('file://report.pdf');
  });

  it('does not match without the dot', () => {
    expect(new UriTemplate('file://report{.ext}').match('file://reportpdf')).toBeNull();
  });
});

describe('UriTemplate: path parameters {;var}', () => {
  const template = new UriTemplate('map://point{;x,y}');

  it('matches name=value pairs', () => {
    expect(template.match('map://point;x=1024;y=768')).toEqual({ x: '1024', y: '768' });
  });

  it('matches a parameter without a value as an empty string', () => {
    expect(template.match('map://point;x;y=2')).toEqual({ x: '', y: '2' });
  });

  it('ignores parameters the template does not name, and decodes values', () => {
    expect(template.match('map://point;z=9;x=a%20b')).toEqual({ x: 'a b' });
  });

  it('expands name=value pairs', () => {
    expect(template.expand({ x: '1024', y: '768' })).toBe('map://point;x=1024;y=768');
  });
});

describe('UriTemplate: query {?a,b} and continuation {&c}', () => {
  const search = new UriTemplate('search://items{?q,page}');

  it('matches query parameters and decodes them', () => {
    expect(search.match('search://items?q=hello%20world&page=2')).toEqual({ q: 'hello world', page: '2' });
  });

  it('matches query parameters in any order', () => {
    expect(search.match('search://items?page=2&q=x')).toEqual({ q: 'x', page: '2' });
  });

  it('matches with some or none of the parameters', () => {
    expect(search.match('search://items?page=3')).toEqual({ page: '3' });
    expect(search.match('search://items')).toEqual({});
  });

  it('ignores query parameters the template does not name', () => {
    expect(search.match('search://items?q=a&sort=asc')).toEqual({ q: 'a' });
  });

  it('expands the query, skipping undefined variables', () => {
    expect(search.expand({ q: 'hello world', page: '2' })).toBe('search://items?q=hello%20world&page=2');
    expect(search.expand({ page: '2' })).toBe('search://items?page=2');
    expect(search.expand({})).toBe('search://items');
  });

  it('round-trips values with & and = through expand and match', () => {
    const uri = search.expand({ q: 'a&b=c', page: '1' });
    expect(uri).toBe('search://items?q=a%26b%3Dc&page=1');
    expect(search.match(uri)).toEqual({ q: 'a&b=c', page: '1' });
  });

  it('matches {&c} after a literal query', () => {
    const template = new UriTemplate('search://items?fixed=yes{&c}');
    expect(template.match('search://items?fixed=yes&c=3')).toEqual({ c: '3' });
    expect(template.match('search://items?fixed=yes')).toEqual({});
    expect(template.expand({ c: '3' })).toBe('search://items?fixed=yes&c=3');
  });

  it('combines a path variable and a query', () => {
    const template = new UriTemplate('db://{table}/rows{?limit,offset}');
    expect(template.variableNames).toEqual(['table', 'limit', 'offset']);
    expect(template.match('db://users/rows?limit=10&offset=20')).toEqual({ table: 'users', limit: '10', offset: '20' });
    expect(template.match('db://users/rows')).toEqual({ table: 'users' });
    expect(template.match('db://users/cols?limit=10')).toBeNull();
  });
});

describe('UriTemplate: RFC 6570 section 3.2 expansion examples', () => {
  // Variables and expected expansions from RFC 6570 §3.2.1; each operator's rules are in §3.2.2-3.2.9.
  const vars = { var: 'value', hello: 'Hello World!', path: '/foo/bar', empty: '', x: '1024', y: '768' };
  it.each([
    ['{var}', 'value'],
    ['{hello}', 'Hello%20World%21'],
    ['{x,hello,y}', '1024,Hello%20World%21,768'],
    ['{+var}', 'value'],
    ['{+hello}', 'Hello%20World!'],
    ['{+path}/here', '/foo/bar/here'],
    ['here?ref={+path}', 'here?ref=/foo/bar'],
    ['{+x,hello,y}', '1024,Hello%20World!,768'],
    ['{#var}', '#value'],
    ['{#hello}', '#Hello%20World!'],
    ['{#x,hello,y}', '#1024,Hello%20World!,768'],
    ['X{.var}', 'X.value'],
    ['X{.x,y}', 'X.1024.768'],
    ['{/var}', '/value'],
    ['{/var,x}/here', '/value/1024/here'],
    ['{;x,y}', ';x=1024;y=768'],
    ['{;x,y,empty}', ';x=1024;y=768;empty'],
    ['{?x,y}', '?x=1024&y=768'],
    ['{?x,y,empty}', '?x=1024&y=768&empty='],
    ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
    ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ['{undef}', ''],
    ['{?undef}', ''],
  ])('expands %s to %s', (template, expected) => {
    expect(new UriTemplate(template).expand(vars)).toBe(expected);
  });
});
