import { ArgParser } from '../src';

describe('help', () => {
  it('lists arguments and options', () => {
    const parser = new ArgParser('resize', 'Resize images in place')
      .option('width', { type: 'number', short: 'w', description: 'Target width', required: true })
      .option('format', { choices: ['png', 'jpeg'], default: 'png', valueName: 'EXT' })
      .option('quiet', { type: 'boolean', short: 'q', description: 'Print nothing' })
      .positional('files', { variadic: true, description: 'Images to resize' });

    expect(parser.help()).toBe(
      [
        'Usage: resize [options] <files...>',
        '',
        'Resize images in place',
        '',
        'Arguments:',
        '  files  Images to resize',
        '',
        'Options:',
        '  -w, --width <WIDTH>  Target width (required)',
        '      --format <EXT>   (one of: png, jpeg; default: png)',
        '  -q, --quiet          Print nothing',
        '',
      ].join('\n'),
    );
  });

  it('prints a bare usage line for a command without declarations', () => {
    expect(new ArgParser('noop').help()).toBe('Usage: noop\n');
  });

  it('marks optional positionals', () => {
    const text = new ArgParser('copy').positional('source').positional('target', { required: false }).help();
    expect(text.split('\n')[0]).toBe('Usage: copy <source> [target]');
  });
});
