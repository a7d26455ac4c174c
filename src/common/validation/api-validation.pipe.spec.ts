import { jest } from '@jest/globals';
import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { FeedKnowledgeQuery, KnowledgeFilterQuery } from '../../hosts/model/knowledge-filter.query.js';
import { AppError } from '../errors/app-error.js';
import { ApiValidationPipe } from './api-validation.pipe.js';

class TagsQuery {
  @IsOptional()
  @IsString({ each: true })
  tags?: string[];

  @IsOptional()
  @IsIn(['a', 'b'])
  sort?: string;
}

const asQuery = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'query', metatype });

describe('the global pipe on a query string it has read before', () => {
  it('gives each request its own DTO of the class, equal to the first', async () => {
    const pipe = new ApiValidationPipe();
    const first = (await pipe.transform({ tags: ['x', 'y'], sort: 'a' }, asQuery(TagsQuery))) as TagsQuery;
    const again = (await pipe.transform({ tags: ['x', 'y'], sort: 'a' }, asQuery(TagsQuery))) as TagsQuery;
    expect(again).toBeInstanceOf(TagsQuery);
    expect(again).not.toBe(first);
    expect({ ...again }).toEqual({ tags: ['x', 'y'], sort: 'a' });
    // What one handler does to its copy never reaches the next request's.
    first.sort = 'b';
    expect(() => first.tags!.push('z')).toThrow(TypeError);
    const third = (await pipe.transform({ tags: ['x', 'y'], sort: 'a' }, asQuery(TagsQuery))) as TagsQuery;
    expect({ ...third }).toEqual({ tags: ['x', 'y'], sort: 'a' });
  });

  it('transforms and validates a query once, and a refused one every time', async () => {
    const pipe = new ApiValidationPipe();
    const reads = jest.spyOn(ValidationPipe.prototype, 'transform');
    try {
      for (let i = 0; i < 3; i++) await pipe.transform({ sort: 'a' }, asQuery(TagsQuery));
      expect(reads).toHaveBeenCalledTimes(1);
      for (let i = 0; i < 3; i++) await pipe.transform({ sort: 'c' }, asQuery(TagsQuery)).catch(() => undefined);
      expect(reads).toHaveBeenCalledTimes(4);
    } finally {
      reads.mockRestore();
    }
  });

  it('reads the same query afresh for another class', async () => {
    const pipe = new ApiValidationPipe();
    expect({ ...((await pipe.transform({}, asQuery(KnowledgeFilterQuery))) as object) }).toEqual({
      wildcard: 'include',
      scope: 'in',
    });
    expect({ ...((await pipe.transform({}, asQuery(FeedKnowledgeQuery))) as object) }).toEqual({
      wildcard: 'exclude',
      scope: 'in',
    });
  });

  it('refuses a bad query every time it is asked, with the same error', async () => {
    const pipe = new ApiValidationPipe();
    for (let i = 0; i < 3; i++) {
      await expect(pipe.transform({ sort: 'c' }, asQuery(TagsQuery))).rejects.toEqual(
        new AppError('invalid_query', 'sort must be one of the following values: a, b'),
      );
    }
  });

  it('drops parameters the class does not name, on the first request and on every later one', async () => {
    const pipe = new ApiValidationPipe();
    for (let i = 0; i < 2; i++) {
      expect({ ...((await pipe.transform({ sort: 'b', other: '1' }, asQuery(TagsQuery))) as object) }).toEqual({
        sort: 'b',
      });
    }
  });
});
