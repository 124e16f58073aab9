import { createClock } from '../../src/clock';

describe('the sandbox clock', () => {
  afterEach(() => jest.restoreAllMocks());

  test('when the wall clock steps back, then sandbox time stands still instead of going back', () => {
    const wall = jest.spyOn(Date, 'now').mockReturnValue(10_000);
    const clock = createClock();
    expect(clock.now()).toBe(10_000);
    wall.mockReturnValue(9_000);
    expect(clock.now()).toBe(10_000);
    wall.mockReturnValue(10_500);
    expect(clock.now()).toBe(10_500);
  });

  test('when advanced, then time moves forward by exactly that much from a start it was given', () => {
    jest.spyOn(Date, 'now').mockReturnValue(50_000);
    const clock = createClock(1_000);
    expect(clock.now()).toBe(1_000);
    clock.advance(2_000);
    expect(clock.now()).toBe(3_000);
  });

  test('when moved back on purpose (a unit test setting a date), then it goes back', () => {
    jest.spyOn(Date, 'now').mockReturnValue(50_000);
    const clock = createClock();
    clock.advance(-20_000);
    expect(clock.now()).toBe(30_000);
  });
});
