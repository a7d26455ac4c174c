import { exactHostOf, reduceExclusion, reduceTarget, reduceValue } from './scope-target.js';

describe('reducing scope targets to root domains', () => {
  it.each([
    ['*.auvik.com', ['auvik.com']],
    ['gemini.com', ['gemini.com']],
    ['creditcard.exchange.gemini.com', ['gemini.com']],
    ['https://mein.wien.gv.at/broker/api/*', ['wien.gv.at']],
    ['https://*.gesundheitsverbund.at', ['gesundheitsverbund.at']],
    ['http://data-api.coindesk.com/', ['coindesk.com']],
    ['https://www.minhaconta.zoop.com.br', ['zoop.com.br']],
    ['api.simplisafe.com (HSP Endpoints)', ['simplisafe.com']],
    ['*.prd.platform.simplisafe.com (App Endpoints)', ['simplisafe.com']],
    ['Dropbox.com', ['dropbox.com']],
    ['*.example.(com|de)', ['example.com', 'example.de']],
    ['api-*.example.co.uk', ['example.co.uk']],
    ['https://user:pw@shop.example.com:8443/x?y#z', ['example.com']],
    ['www.bücher.de', ['xn--bcher-kva.de']],
    [
      'https://lazzx4o5mh.execute-api.eu-west-1.amazonaws.com/production/x',
      ['lazzx4o5mh.execute-api.eu-west-1.amazonaws.com'],
    ],
    ['*.app.herokuapp.com', ['app.herokuapp.com']],
    ['example.com.', ['example.com']],
    ['*tidalhi.fi', ['tidalhi.fi']],
    [' https://api-*exoscale.com/v2', ['exoscale.com']],
    ['www.fing.com*', ['fing.com']],
    ['*.hicloudcam.com,', ['hicloudcam.com']],
    ['*. advancedcustomfields.com', ['advancedcustomfields.com']],
    ['wss://ws.bitvavo.com/v2 *', ['bitvavo.com']],
    ['bugcrowd-pam-###.oktapreview.com', ['oktapreview.com']],
    ['bugbounty-refined-test-<bugcrowd-name>.refined.site\t', ['refined.site']],
    ['https://[it | fr | us | sg | …].louisvuitton.com', ['louisvuitton.com']],
    ['https://edge.blablacar.(fr|de|co.uk))', ['blablacar.fr', 'blablacar.de', 'blablacar.co.uk']],
  ])('reduces %j to %j', (value, roots) => expect(reduceValue(value)).toEqual({ roots }));

  it.each([
    ['Zendesk Public Repositories', 'free_text'],
    ['Leaked/compromised employee accounts *.here.com', 'free_text'],
    ['████████████', 'free_text'],
    ['198.142.152.60', 'ip_address'],
    ['213.211.188.0/24', 'ip_address'],
    ['IPv6: 2a02:2c40::/32', 'ip_address'],
    ['https://play.google.com/store/apps/details?id=com.acorns.android', 'mobile_app'],
    ['https://apps.apple.com/us/app/loom-screen-recorder/id1474480829', 'mobile_app'],
    ['https://marketplace.atlassian.com/apps/1221601/user-deactivator', 'app_store_listing'],
    ['https://github.com/grafana/loki', 'source_code'],
    ['https://docs.google.com/spreadsheets/d/1CzscF67/edit?gid=1', 'third_party_document'],
    ['https://www.microsoft.com/en-us/p/keeperchat/9pdqtcpn4kxn#activetab=pivot:overviewtab', 'app_store_listing'],
    ['https://microsoftedge.microsoft.com/addons/detail/pinterest-save-button/bkgo', 'app_store_listing'],
    ['https://gist.github.com/RedBullSecurity/3eb88debcb01759eccf65ec2b799b340', 'source_code'],
    ['https://gitlab.isc.org/isc-projects/bind9', 'source_code'],
    ['localhost', 'free_text'],
    ['*.co.uk', 'no_registrable_domain'],
    ['*.dhl', 'no_registrable_domain'],
    ['*.nexuzhealth.*', 'no_registrable_domain'],
    ['gov.sg', 'no_registrable_domain'],
    ['Backend endpoint: bug-bounty-be.glean.com', 'free_text'],
    ['open redirect at *.epam.com', 'free_text'],
  ])('skips %j as %s', (value, reason) => expect(reduceValue(value)).toEqual({ skip: reason }));

  it.each([
    ['GOOGLE_PLAY_APP_ID', 'com.gemini.android.app', 'mobile_app'],
    ['APPLE_STORE_APP_ID', 'com.gemini.ios', 'mobile_app'],
    ['android', 'Oura Android App', 'mobile_app'],
    ['mobile-application-ios', 'https://apps.apple.com/fr/app/x/id1', 'mobile_app'],
    ['iprange', '31.31.140.0/24', 'ip_address'],
    ['network', '172.24.250.128', 'ip_address'],
    ['open-source', 'https://gitlab.isc.org/isc-projects/bind9', 'source_code'],
    ['hardware', 'Wyze Cam V3', 'not_web'],
    ['iot', 'https://www.sophos.com/en-us/products/next-gen-firewall', 'not_web'],
  ])('skips a %s target as %s', (type, value, reason) => expect(reduceTarget(type, value)).toEqual({ skip: reason }));

  it('reads web targets of generic types by their value', () => {
    expect(reduceTarget('mobile-application', 'preprod.am.monespacesante.fr')).toEqual({
      roots: ['monespacesante.fr'],
    });
    expect(reduceTarget('other', 'wellbeing.dzcdn.net')).toEqual({ roots: ['dzcdn.net'] });
    expect(reduceTarget(null, 'https://github.com/grafana/alloy')).toEqual({ skip: 'source_code' });
    expect(reduceTarget('URL', '*.auvik.com')).toEqual({ roots: ['auvik.com'] });
  });
});

describe('reducing out-of-scope targets to exclusion rules', () => {
  const rules = (type: string | null, value: unknown) => {
    const r = reduceExclusion(type, value);
    return 'skip' in r ? r.skip : r.rules.map((x) => `${x.root} ${x.pattern.kind} ${x.pattern.pattern}`);
  };

  it.each([
    ['auth.auvik.com', ['auvik.com host auth.auvik.com']],
    ['*.my.auvik.com', ['auvik.com wildcard *.my.auvik.com']],
    ['https://uat.accounts.coindesk.com', ['coindesk.com host uat.accounts.coindesk.com']],
    ['https://info.loom.com/', ['loom.com host info.loom.com']],
    ['uptime.aiven.io\t', ['aiven.io host uptime.aiven.io']],
    ['https://*streaming*.arlo.com', ['arlo.com wildcard *streaming*.arlo.com']],
    ['api.tanker.io (Accessing the tanker private key is normal)', ['tanker.io host api.tanker.io']],
    ['*.dev.example.(com|de)', ['example.com wildcard *.dev.example.com', 'example.de wildcard *.dev.example.de']],
    ['shop.bücher.de', ['xn--bcher-kva.de host shop.xn--bcher-kva.de']],
  ])('%s makes %j', (value, expected) => {
    expect(rules('website', value)).toEqual(expected);
  });

  it.each([
    ['*.trustwallet.com', 'whole_root_domain'],
    ['merakipartners.com', 'whole_root_domain'],
    ['https://www.kiwa.com/en/contact/', 'part_of_a_host'],
    ['demorgen.be/login', 'part_of_a_host'],
    ['admin.example.com:8443', 'part_of_a_host'],
    ['Any staging environment will be out of scope', 'free_text'],
    ['████████████████████████████', 'free_text'],
    ['194.41.248.224', 'ip_address'],
    ['*.herokuapp.com', 'no_registrable_domain'],
  ])('%s makes no rule: %s', (value, reason) => {
    expect(rules('url', value)).toBe(reason);
  });

  it('skips what a target type says is no web host', () => {
    expect(rules('ios', 'Bitdefender Central (iOS App)')).toBe('mobile_app');
    expect(rules('iprange', '10.0.0.0/8')).toBe('ip_address');
    expect(rules('website', 42)).toBe('free_text');
  });
});

describe('the exact host of an in-scope target', () => {
  it.each([
    ['https://www.gemini.com/x', 'www.gemini.com'],
    ['api.simplisafe.com (HSP Endpoints)', 'api.simplisafe.com'],
    ['*.auvik.com', null],
    ['*.example.(com|de)', null],
    ['free text here', null],
  ])('%s → %s', (value, host) => {
    expect(exactHostOf(value)).toBe(host);
  });
});
